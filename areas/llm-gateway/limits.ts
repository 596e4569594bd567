/** Bounds of the gateway's inputs (route schemas read them). */
export const GATEWAY_LIMITS = {
  messages: 500,
  messageChars: 400_000,
  tools: 128,
  maxTokens: 1_000_000,
  embeddingInputs: 2048,
  embeddingChars: 100_000,
  keyModels: 100,
  budgetUsd: 1_000_000,
  rpm: 1_000_000,
  tpm: 100_000_000,
  price: 100_000,
  contextWindow: 10_000_000,
  fallbacks: 5,
  /** A rerank call's documents, and the characters of each (a chunk's worth, and then some). */
  rerankDocuments: 1000,
  rerankDocumentChars: 20_000,
  /** A response format's JSON Schema, as JSON text: compiled on every call that names a new one. */
  schemaChars: 100_000,
} as const;

/** A model name becomes part of usage sort keys: letters, digits and `. _ : / -`, no `#`. */
export const MODEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
export const PROVIDERS = ['local', 'bedrock', 'openai-compatible'] as const;
export const MODEL_KINDS = ['chat', 'embedding', 'rerank'] as const;
/** A chat body up to a long context's worth of text. */
export const CHAT_MAX_BODY_BYTES = 2 * 1024 * 1024;
