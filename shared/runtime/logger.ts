import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs; each request appends its request id and route. */
export const logger = new Logger({
  serviceName: process.env.APP_NAME ?? 'saas',
  logLevel: (process.env.LOG_LEVEL as 'INFO' | undefined) ?? 'INFO',
});
