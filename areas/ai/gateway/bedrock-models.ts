/**
 * The Amazon Bedrock models the catalog may name on deployed stages. Pure data: the stack scopes the
 * gateway's bedrock:InvokeModel* grant to exactly these ARNs (lib/access.ts), and a SystemAdmin adds
 * them to the catalog (PUT /api/llm-gateway/models/{modelId}, provider `bedrock`, providerModel the id).
 * A model outside this list is refused by IAM until it is added here and deployed.
 */
export const BEDROCK_MODEL_IDS = [
  'anthropic.claude-3-5-haiku-20241022-v1:0',
  'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'amazon.nova-lite-v1:0',
  'amazon.nova-pro-v1:0',
  'amazon.titan-embed-text-v2:0',
] as const;
