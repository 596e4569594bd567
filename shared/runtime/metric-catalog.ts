/**
 * Every business metric the platform emits, each split by one dimension. The runtime counts them
 * (`countMetric` in metrics.ts) and the stack's dashboard draws one graph per entry (lib/monitoring.ts),
 * so an area that needs a new metric adds it here and calls `countMetric`; nothing else changes.
 * Pure data: the CDK app imports it too.
 */
export const BUSINESS_METRICS = {
  SignInSucceeded: { dimension: 'method', title: 'Sign-ins succeeded, by method' },
  SignInRefused: { dimension: 'reason', title: 'Sign-ins refused, by reason' },
  RateLimitRefused: { dimension: 'rule', title: 'Rate-limit refusals (429), by rule' },
  Registration: { dimension: 'source', title: 'Registrations, by source' },
  MessageProcessed: { dimension: 'queue', title: 'Queue messages processed' },
  MessageRetried: { dimension: 'queue', title: 'Queue messages failed, to be retried' },
  MessageParked: { dimension: 'queue', title: 'Queue messages failed for the last time (dead-lettered)' },
  WebhookApplied: { dimension: 'provider', title: 'Provider webhooks applied' },
  WebhookDuplicateIgnored: { dimension: 'provider', title: 'Provider webhooks ignored as duplicates' },
  Payment: { dimension: 'status', title: 'Payments, by status' },
  ContentFormSubmitted: { dimension: 'outcome', title: 'Public form submissions, accepted or marked spam' },
  UsageRecorded: { dimension: 'kind', title: 'AI usage records counted (llm, conversation)' },
  UsageDuplicateIgnored: { dimension: 'kind', title: 'AI usage records ignored as already counted' },
  // The LLM gateway.
  LlmCalls: { dimension: 'outcome', title: 'LLM gateway calls, by outcome (answered, fallback, failed, refused)' },
  LlmSpendMicroUsd: { dimension: 'model', title: 'LLM gateway spend in millionths of a dollar, by model' },
  LlmSpendTotalMicroUsd: {
    dimension: 'scope',
    title: 'LLM gateway spend in millionths of a dollar, all models (the spend alarm watches it)',
  },
  LlmRecordFailed: { dimension: 'area', title: 'Model calls whose usage record failed (logged with the request id)' },
} as const satisfies Record<string, { dimension: string; title: string }>;

export type BusinessMetric = keyof typeof BUSINESS_METRICS;

/** The one value of `LlmSpendTotalMicroUsd`'s dimension: the alarm names its full dimension set. */
export const LLM_SPEND_TOTAL = 'gateway';

/** CloudWatch namespace of the business metrics: one per deployment (`saas/prod`). */
export const metricsNamespace = (appName: string, stage: string) => `${appName}/${stage}`;

/**
 * Every metric line also carries `service` = the app name (Powertools' default dimension), so a
 * metric's full dimension set is `service` plus its own dimension.
 */
export const SERVICE_DIMENSION = 'service';
