/** Records per ingestion call (llmCalls and conversations together). */
export const MAX_EVENTS_PER_CALL = 1000;
/** A reported record's own id: a retried batch with the same ids counts once. */
export const RECORD_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;
/** Model names and escalation reasons become parts of sort keys and attribute names: no control characters, no `#`. */
export const LABEL_PATTERN = /^[^\u0000-\u001f#]+$/;
/** Spend share of the monthly budget at which the llm result carries a budget alert. */
export const BUDGET_ALERT_PERCENT = 80;
