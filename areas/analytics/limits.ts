/** Records per ingestion call (llmCalls and conversations together). */
export const MAX_EVENTS_PER_CALL = 1000;
/** A reported record's own id: a retried batch with the same ids counts once. */
export const RECORD_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;
/** Model names and escalation reasons become parts of sort keys and attribute names: no control characters, no `#`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: keeping control characters out is the point, and the OpenAPI document publishes this pattern as written
export const LABEL_PATTERN = /^[^\u0000-\u001f#]+$/;
/** Spend share of the monthly budget at which the llm result carries a budget alert. */
export const BUDGET_ALERT_PERCENT = 80;
/** Bounds of a reported record's measurements, and of a monthly budget (USD). */
export const RECORD_LIMITS = {
  costUsd: 1_000_000,
  tokens: 100_000_000,
  latencyMs: 3_600_000,
  durationSeconds: 30 * 86_400,
} as const;
export const BUDGET_LIMITS = { min: 0.01, max: 10_000_000 } as const;
