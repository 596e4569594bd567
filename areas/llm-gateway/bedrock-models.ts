import type { ModelInput } from './records.ts';

/**
 * The Amazon Bedrock models a deployed stage may offer, with what their catalog entry needs. Pure
 * data: the stack reads it at synth time. A stage names the ones it offers (`-c bedrockModels=...`,
 * default DEFAULT_BEDROCK_MODEL_IDS); for exactly those the stack scopes the gateway's
 * bedrock:InvokeModel* grant (lib/access.ts) and seeds a catalog entry when absent
 * (lib/llm-catalog-seed.ts). A model outside the stage's list is refused by IAM until it is
 * added here (or to the stage's list) and deployed.
 *
 * Prices are Bedrock's on-demand list prices (USD per million tokens, us-east-1, 2025); a
 * SystemAdmin corrects them with PUT /api/llm-gateway/models/{modelId}, and a later deploy never
 * overwrites that. The catalog ids are fixed so a redeploy finds its entry and prompts can name it.
 */
export interface BedrockModel extends Omit<ModelInput, 'provider' | 'providerModel' | 'fallbackModelIds' | 'isActive'> {
  /** The Bedrock model id (the entry's `providerModel` and the IAM grant's foundation-model). */
  bedrockId: string;
  /** The catalog entry's id. */
  catalogId: string;
  /** Bedrock ids of the entry's fallbacks, in order; those the stage does not offer are left out. */
  fallbacks: string[];
}

export const BEDROCK_MODELS: readonly BedrockModel[] = [
  {
    bedrockId: 'amazon.nova-lite-v1:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0001',
    name: 'nova-lite',
    kind: 'chat',
    inputPricePerMillion: 0.06,
    outputPricePerMillion: 0.24,
    contextWindow: 300_000,
    fallbacks: [],
  },
  {
    bedrockId: 'amazon.nova-pro-v1:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0002',
    name: 'nova-pro',
    kind: 'chat',
    inputPricePerMillion: 0.8,
    outputPricePerMillion: 3.2,
    contextWindow: 300_000,
    fallbacks: ['amazon.nova-lite-v1:0'],
  },
  {
    bedrockId: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0003',
    name: 'claude-3-5-haiku',
    kind: 'chat',
    inputPricePerMillion: 0.8,
    outputPricePerMillion: 4,
    contextWindow: 200_000,
    fallbacks: ['amazon.nova-lite-v1:0'],
  },
  {
    bedrockId: 'anthropic.claude-3-7-sonnet-20250219-v1:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0004',
    name: 'claude-3-7-sonnet',
    kind: 'chat',
    inputPricePerMillion: 3,
    outputPricePerMillion: 15,
    contextWindow: 200_000,
    fallbacks: ['anthropic.claude-3-5-haiku-20241022-v1:0', 'amazon.nova-pro-v1:0'],
  },
  {
    bedrockId: 'amazon.titan-embed-text-v2:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0005',
    name: 'titan-embed-text-v2',
    kind: 'embedding',
    inputPricePerMillion: 0.02,
    outputPricePerMillion: 0,
    contextWindow: 8_192,
    fallbacks: [],
  },
  // Rerankers are billed per query ($1 and $2 per 1,000 at launch); metered per token read, these
  // prices match that for a query over about fifty 300-token chunks (docs/decisions/llm-gateway.md).
  {
    bedrockId: 'amazon.rerank-v1:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0006',
    name: 'amazon-rerank-v1',
    kind: 'rerank',
    inputPricePerMillion: 0.07,
    outputPricePerMillion: 0,
    contextWindow: 4_096,
    fallbacks: [],
  },
  {
    bedrockId: 'cohere.rerank-v3-5:0',
    catalogId: '6f1d0c3e-2b1a-4c8e-9f00-0000000b0007',
    name: 'cohere-rerank-v3-5',
    kind: 'rerank',
    inputPricePerMillion: 0.13,
    outputPricePerMillion: 0,
    contextWindow: 4_096,
    fallbacks: ['amazon.rerank-v1:0'],
  },
];

export const BEDROCK_MODEL_IDS = BEDROCK_MODELS.map((m) => m.bedrockId);

/**
 * What a stage offers unless told otherwise: one chat and one embedding model, both callable
 * on demand by their model id in the regions that have them (the Anthropic models need an
 * inference profile in many regions, so they are opt-in).
 */
export const DEFAULT_BEDROCK_MODEL_IDS: readonly string[] = ['amazon.nova-lite-v1:0', 'amazon.titan-embed-text-v2:0'];

/** The stage's models, in the order given; an id not in BEDROCK_MODELS is an error naming it. */
export function offeredBedrockModels(ids: readonly string[]): BedrockModel[] {
  const unknown = ids.filter((id) => !BEDROCK_MODEL_IDS.includes(id));
  if (unknown.length)
    throw new Error(
      `Unknown Bedrock model ${unknown.map((u) => JSON.stringify(u)).join(', ')}; known: ${BEDROCK_MODEL_IDS.join(', ')} (areas/llm-gateway/bedrock-models.ts)`,
    );
  return [...new Set(ids)].map((id) => BEDROCK_MODELS.find((m) => m.bedrockId === id)!);
}

/** The catalog entry of an offered model: active, provider bedrock, fallbacks among the offered only. */
export function bedrockCatalogInput(m: BedrockModel, offered: readonly BedrockModel[]): ModelInput & { id: string } {
  const { bedrockId, catalogId, fallbacks, ...rest } = m;
  return {
    id: catalogId,
    ...rest,
    provider: 'bedrock',
    providerModel: bedrockId,
    fallbackModelIds: fallbacks.flatMap((f) => offered.filter((o) => o.bedrockId === f).map((o) => o.catalogId)),
    isActive: true,
  };
}
