import type { Node } from 'constructs';
import { DEFAULT_BEDROCK_MODEL_IDS, offeredBedrockModels } from '#areas/llm-gateway/bedrock-models.ts';

/** Deploy-time settings, from CDK context (`-c stage=prod`, cdk.json or cdk.context.json). */
export interface StackSettings {
  appName: string;
  stage: string;
  /** Browser origins allowed by the API's CORS preflight. */
  corsOrigins: string[];
  /** Default-stage throttling of the HTTP API (requests per second, burst). */
  throttle: { rateLimit: number; burstLimit: number };
  /** SES sender; the e-mail worker may send only from this address. */
  mailFrom: string;
  jwtIssuer: string;
  jwtAudience: string;
  /** Base URL for links in e-mails; the API's own URL when unset. */
  publicBaseUrl?: string;
  /** Keep the table, buckets and vault key when the stack is deleted (default: prod only). */
  retainData: boolean;
  /** Extra environment for every function (identity-provider endpoints, redirect allow-list, ...). */
  extraEnv: Record<string, string>;
  monitoring: MonitoringSettings;
  /**
   * The Amazon Bedrock models the stage offers (`-c bedrockModels=id,id`, ids from
   * areas/llm-gateway/bedrock-models.ts; default one chat and one embedding model): the gateway may
   * invoke only these, and each gets a catalog entry on deploy unless it has one.
   */
  bedrockModels: string[];
}

/** Alarm recipients and thresholds (docs/operations.md lists them with their defaults). */
interface MonitoringSettings {
  /** Addresses subscribed to the alarm topic (`-c alarmEmail=a@x.com[,b@y.com]`); none by default. */
  alarmEmails: string[];
  /** An API function's error rate (errors / invocations, %) that raises its alarm when exceeded. */
  functionErrorRatePercent: number;
  /** The HTTP API's 5xx rate (5xx / requests, %) that raises its alarm when exceeded. */
  api5xxRatePercent: number;
  /** The HTTP API's p99 latency (ms) that raises its alarm when exceeded. */
  apiP99LatencyMs: number;
  /** The LLM gateway's spend over one hour (USD, every model and tenant) that raises its alarm when exceeded. */
  llmSpendUsdPerHour: number;
}

const MONITORING_DEFAULTS = {
  functionErrorRatePercent: 1,
  api5xxRatePercent: 1,
  apiP99LatencyMs: 3000,
  llmSpendUsdPerHour: 10,
} as const;

const list = (value: unknown): string[] | undefined => {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  return items.map((s) => s.trim()).filter(Boolean);
};

const positiveNumber = (value: unknown, fallback: number, name: string): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`Context ${name} must be a positive number, got ${String(value)}`);
  return n;
};

/** Deliberately plain: SNS validates the address itself; this catches typos and stray values at synth. */
const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;.]+$/;

/** Absent: no subscription. Present: one or more comma-separated addresses, every one well formed. */
function alarmEmails(value: unknown): string[] {
  if (value === undefined) return [];
  const items = (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((s) => s.trim());
  if (!items.some(Boolean))
    throw new Error(
      'Context alarmEmail is empty: pass -c alarmEmail=ops@example.com, or leave it out for no e-mail subscription',
    );
  const bad = items.filter((s) => !EMAIL.test(s));
  if (bad.length)
    throw new Error(
      `Context alarmEmail must be e-mail addresses separated by commas; not an address: ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
    );
  return items;
}

const bool = (value: unknown): boolean | undefined =>
  value === undefined ? undefined : value === true || value === 'true';

const stringMap = (value: unknown): Record<string, string> => {
  if (value === undefined) return {};
  const obj = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj))
    throw new Error('Context extraEnv must be an object of strings');
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, String(v)]));
};

/** Front ends a `dev` stage is called from when no corsOrigins are given: the local ones. */
const DEV_CORS_ORIGINS = ['http://localhost:3000', 'http://127.0.0.1:3000'];

/**
 * Which browser origins may call the API. Never a silent `*`: a stage other than `dev` must name its
 * origins (`-c corsOrigins=https://app.example.com`, or `*` deliberately); `dev` defaults to the local ones.
 */
function corsOrigins(given: string[] | undefined, stage: string): string[] {
  if (given?.length) return given;
  if (stage === 'dev') return DEV_CORS_ORIGINS;
  throw new Error(
    `Context corsOrigins is required for stage ${stage}: pass -c corsOrigins=https://app.example.com (comma-separated; * only deliberately)`,
  );
}

/** Absent: the defaults. Given: known ids only (the synth stops naming an unknown one); empty offers none. */
function bedrockModels(given: string[] | undefined): string[] {
  const ids = given ?? [...DEFAULT_BEDROCK_MODEL_IDS];
  return offeredBedrockModels(ids).map((m) => m.bedrockId);
}

export function readSettings(node: Node): StackSettings {
  const ctx = (key: string): unknown => node.tryGetContext(key);
  const appName = String(ctx('appName') ?? 'saas');
  const stage = String(ctx('stage') ?? 'dev');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(appName) || !/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error('Context appName and stage must be lowercase letters, digits and hyphens (max 20)');
  }
  const publicBaseUrl = ctx('publicBaseUrl');
  return {
    appName,
    stage,
    corsOrigins: corsOrigins(list(ctx('corsOrigins')), stage),
    throttle: {
      rateLimit: positiveNumber(ctx('throttleRateLimit'), 100, 'throttleRateLimit'),
      burstLimit: positiveNumber(ctx('throttleBurstLimit'), 200, 'throttleBurstLimit'),
    },
    mailFrom: String(ctx('mailFrom') ?? 'no-reply@example.com'),
    jwtIssuer: String(ctx('jwtIssuer') ?? `urn:${appName}:${stage}:auth`),
    jwtAudience: String(ctx('jwtAudience') ?? `${appName}-api`),
    ...(publicBaseUrl === undefined ? {} : { publicBaseUrl: String(publicBaseUrl) }),
    retainData: bool(ctx('retainData')) ?? stage === 'prod',
    extraEnv: stringMap(ctx('extraEnv')),
    monitoring: {
      alarmEmails: alarmEmails(ctx('alarmEmail')),
      functionErrorRatePercent: positiveNumber(
        ctx('alarmFunctionErrorRatePercent'),
        MONITORING_DEFAULTS.functionErrorRatePercent,
        'alarmFunctionErrorRatePercent',
      ),
      api5xxRatePercent: positiveNumber(
        ctx('alarmApi5xxRatePercent'),
        MONITORING_DEFAULTS.api5xxRatePercent,
        'alarmApi5xxRatePercent',
      ),
      apiP99LatencyMs: positiveNumber(
        ctx('alarmApiP99LatencyMs'),
        MONITORING_DEFAULTS.apiP99LatencyMs,
        'alarmApiP99LatencyMs',
      ),
      llmSpendUsdPerHour: positiveNumber(
        ctx('alarmLlmSpendUsdPerHour'),
        MONITORING_DEFAULTS.llmSpendUsdPerHour,
        'alarmLlmSpendUsdPerHour',
      ),
    },
    bedrockModels: bedrockModels(list(ctx('bedrockModels'))),
  };
}

/** SSM parameter path prefix without the leading slash: `saas/dev`. */
export const paramPath = (s: StackSettings, ...rest: string[]) => [s.appName, s.stage, ...rest].join('/');
