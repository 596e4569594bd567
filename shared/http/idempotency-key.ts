/** The `Idempotency-Key` header (API Gateway lowercases header names; the local server may not). */
export const idempotencyKey = (headers: Record<string, string | undefined>) =>
  headers['idempotency-key'] ?? headers['Idempotency-Key'];
