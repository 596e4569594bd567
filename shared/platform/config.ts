/** Runtime settings, read from the environment the stack (or the local server) sets. */
const env = (name: string, fallback: string) => process.env[name] || fallback;

export const config = {
  get appName() {
    return env('APP_NAME', 'saas');
  },
  get stage() {
    return env('STAGE', 'local');
  },
  get tableName() {
    return env('TABLE_NAME', 'saas-local');
  },
  get mediaBucket() {
    return env('MEDIA_BUCKET', 'saas-local-media');
  },
  get invoiceBucket() {
    return env('INVOICE_BUCKET', 'saas-local-invoices');
  },
  get issuer() {
    return env('JWT_ISSUER', 'https://auth.saas.local');
  },
  get audience() {
    return env('JWT_AUDIENCE', 'saas-api');
  },
  /** SSM parameter path prefix: /<app>/<stage>. */
  get paramPrefix() {
    return `/${this.appName}/${this.stage}`;
  },
  queueUrl(queue: string) {
    return env(`${queue.toUpperCase()}_QUEUE_URL`, `local://${queue}`);
  },
  get mailFrom() {
    return env('MAIL_FROM', 'no-reply@saas.local');
  },
  get publicBaseUrl() {
    return env('PUBLIC_BASE_URL', 'http://127.0.0.1:3000');
  },
};
