/**
 * Runtime settings, read from the environment the stack (or the local server) sets. Locally a
 * missing setting falls back to the local stand-ins' value; in a deployed function (the Lambda
 * runtime sets AWS_LAMBDA_FUNCTION_NAME) a missing setting is an error, never a silent local
 * default, and `assertSettings` makes a function fail at start rather than on its first request.
 */
class MissingSettingError extends Error {
  constructor(readonly setting: string) {
    super(`Setting ${setting} is missing from this function's environment`);
    this.name = 'MissingSettingError';
  }
}

const isDeployed = () => !!process.env.AWS_LAMBDA_FUNCTION_NAME;

const env = (name: string, localDefault: string) => {
  const value = process.env[name];
  if (value) return value;
  if (isDeployed()) throw new MissingSettingError(name);
  return localDefault;
};

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
  /** The S3 Vectors bucket of knowledge vectors (areas/knowledge/vectors/s3-vectors.ts). */
  get knowledgeVectorBucket() {
    return env('KNOWLEDGE_VECTOR_BUCKET', 'saas-local-knowledge-vectors');
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
  /** The deployed name of a function the runtime invokes (`browser-action`: BROWSER_ACTION_FUNCTION_NAME). */
  functionName(fn: string) {
    return env(functionNameSetting(fn), `local-${fn}`);
  },
  get mailFrom() {
    return env('MAIL_FROM', 'no-reply@saas.local');
  },
  get publicBaseUrl() {
    return env('PUBLIC_BASE_URL', 'http://127.0.0.1:3000');
  },
  /** Where the widget calls its routes: the conversations front door (any origin) when deployed. */
  get widgetApiBase() {
    return env('WIDGET_API_BASE', this.publicBaseUrl);
  },
};

export const functionNameSetting = (fn: string) => `${fn.toUpperCase().replace(/-/g, '_')}_FUNCTION_NAME`;

/** What a function's access spec (shared/routes/groups.ts) promises it, as environment variables. */
export interface SettingNeeds {
  table?: 'none' | 'read' | 'readwrite';
  media?: 'read' | 'readwrite' | 'knowledge-read' | 'browser-shots';
  invoices?: 'read' | 'readwrite';
  sends?: readonly string[];
  knowledgeVectors?: 'read' | 'readwrite';
  invokes?: readonly string[];
}

/** The variables every function of a spec must have: lib/access.ts sets exactly these (a unit test compares). */
export const requiredSettings = (needs: SettingNeeds): string[] => [
  'APP_NAME',
  'STAGE',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'MAIL_FROM',
  'PUBLIC_BASE_URL',
  ...(needs.table && needs.table !== 'none' ? ['TABLE_NAME'] : []),
  ...(needs.media ? ['MEDIA_BUCKET'] : []),
  ...(needs.invoices ? ['INVOICE_BUCKET'] : []),
  ...(needs.knowledgeVectors ? ['KNOWLEDGE_VECTOR_BUCKET'] : []),
  ...(needs.sends ?? []).map((q) => `${q.toUpperCase()}_QUEUE_URL`),
  ...(needs.invokes ?? []).map(functionNameSetting),
];

/**
 * The local run's one switch for trying tools against servers on this machine
 * (`LOCAL_ALLOW_LOOPBACK_TARGETS=1`): the outbound guards then also accept loopback addresses
 * (127.0.0.0/8, ::1), never private ranges or the metadata address. A deployed function never
 * honours it, whatever its environment says.
 */
export const loopbackTargetsAllowed = () => process.env.LOCAL_ALLOW_LOOPBACK_TARGETS === '1' && !isDeployed();

/** In a deployed function, throws at start when one of `names` is missing. */
export function assertSettings(names: readonly string[]): void {
  if (!isDeployed()) return;
  const missing = names.filter((n) => !process.env[n]);
  if (missing.length) throw new MissingSettingError(missing.join(', '));
}
