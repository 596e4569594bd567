import { keys, type Key } from '#shared/data/keys.ts';

/**
 * The gateway's records and every key shape they use (docs/architecture.md, "LLM gateway"):
 * - the model catalog: one platform item per model (`PLATFORM#LLM_MODEL` / id) and a unique claim
 *   on its name (the OpenAI `model` string);
 * - gateway keys: the tenant's key (`{t}#GATEWAY_KEY` / id: list, budget counters) and a
 *   hash-keyed copy of what authentication needs, so a call finds its key with one GetItem;
 * - the month's token allowance (`{t}#LLM_ALLOWANCE` / `YYYY-MM`) with the reservations in flight,
 *   and the usage per UTC day, model and key beside it (`U#{day}#M#{model}`, `U#{day}#K#{keyId}`).
 */
export const gatewayKeys = {
  model: (id: string) => keys.platformItem('LLM_MODEL', id),
  models: () => keys.platformCollection('LLM_MODEL'),
  modelName: (name: string) => keys.unique('LLM_MODEL_NAME', name),
  key: (tenantId: string, keyId: string) => keys.tenantItem(tenantId, 'GATEWAY_KEY', keyId),
  keys: (tenantId: string) => keys.tenantCollection(tenantId, 'GATEWAY_KEY'),
  keyHash: (hash: string) => keys.unique('GATEWAY_KEY_HASH', hash),
  allowance: (tenantId: string, month: string) => keys.tenantItem(tenantId, 'LLM_ALLOWANCE', month),
  /** What the calls admitted from one lease have used (reservations.ts): the sweep settles an abandoned lease to it. */
  leaseUse: (tenantId: string, leaseId: string) => keys.tenantItem(tenantId, 'LLM_ALLOWANCE', `L#${leaseId}`),
  usage: (tenantId: string, day: string, by: 'M' | 'K', name: string): Key =>
    keys.tenantItem(tenantId, 'LLM_ALLOWANCE', `U#${day}#${by}#${name}`),
  usageRange: (tenantId: string, from: string, to: string) => ({
    pk: keys.tenantCollection(tenantId, 'LLM_ALLOWANCE'),
    from: `U#${from}#`,
    to: `U#${to}#~`,
  }),
};

/**
 * Items holding reservations are listed in one sparse index partition (gsi2), so the scheduler finds
 * reservations of calls that died without a Scan; an item leaves it when its last reservation goes.
 */
export const RESERVATIONS_INDEX = 'LLM#RESERVATIONS';
export const reservationIndex = (key: Key) => ({ gsi2pk: RESERVATIONS_INDEX, gsi2sk: `${key.pk}|${key.sk}` });

export type Provider = 'local' | 'bedrock' | 'openai-compatible';
export type ModelKind = 'chat' | 'embedding' | 'rerank';

/** A catalog entry as stored and as the contract names it. */
export interface CatalogModel {
  id: string;
  name: string;
  provider: Provider;
  providerModel: string;
  kind: ModelKind;
  inputPricePerMillion: number;
  outputPricePerMillion: number;
  contextWindow: number;
  fallbackModelIds: string[];
  isActive: boolean;
  /** openai-compatible only: the endpoint and where its API key is kept. */
  baseUrl?: string | null;
  apiKeySecret?: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a catalog entry is made from (the PUT body; the id is the route's). */
export type ModelInput = Omit<CatalogModel, 'id' | 'createdAt' | 'updatedAt'>;

/**
 * The catalog entry as stored, from its input: the one shape both the PUT route and the deploy-time
 * seed (lib/llm-catalog-seed.ts) write. Prices are kept to a billionth of a dollar per million
 * (DynamoDB keeps magnitudes down to 1e-130 only).
 */
export const modelRecord = (id: string, input: ModelInput, now: string, createdAt = now): CatalogModel => ({
  id,
  ...input,
  inputPricePerMillion: fromNano(toNano(input.inputPricePerMillion)),
  outputPricePerMillion: fromNano(toNano(input.outputPricePerMillion)),
  fallbackModelIds: [...new Set(input.fallbackModelIds)],
  baseUrl: input.baseUrl ?? null,
  apiKeySecret: input.apiKeySecret ?? null,
  createdAt,
  updatedAt: now,
});

/** A catalog entry's items: the model and the claim on its name (a new entry writes both). */
export const catalogItems = (model: CatalogModel) => ({
  model: { ...gatewayKeys.model(model.id), ...model },
  nameClaim: { ...gatewayKeys.modelName(model.name), modelId: model.id },
});

export const toModel = (item: Record<string, unknown>): CatalogModel => ({
  id: String(item.id),
  name: String(item.name),
  provider: item.provider as Provider,
  providerModel: String(item.providerModel ?? ''),
  kind: item.kind as ModelKind,
  inputPricePerMillion: Number(item.inputPricePerMillion ?? 0),
  outputPricePerMillion: Number(item.outputPricePerMillion ?? 0),
  contextWindow: Number(item.contextWindow ?? 0),
  fallbackModelIds: Array.isArray(item.fallbackModelIds) ? (item.fallbackModelIds as string[]) : [],
  isActive: item.isActive !== false,
  baseUrl: (item.baseUrl as string | null | undefined) ?? null,
  apiKeySecret: (item.apiKeySecret as string | null | undefined) ?? null,
  createdAt: String(item.createdAt ?? ''),
  updatedAt: String(item.updatedAt ?? ''),
});

/** The catalog entry as the API shows it (no secret name). */
export const toModelAnswer = (m: CatalogModel) => ({
  id: m.id,
  name: m.name,
  provider: m.provider,
  providerModel: m.providerModel,
  kind: m.kind,
  inputPricePerMillion: m.inputPricePerMillion,
  outputPricePerMillion: m.outputPricePerMillion,
  contextWindow: m.contextWindow,
  fallbackModelIds: m.fallbackModelIds,
  isActive: m.isActive,
  baseUrl: m.baseUrl ?? null,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

/** Money in the gateway's counters: integer billionths of a dollar, so ADD never rounds. */
const NANO = 1_000_000_000;
export const toNano = (usd: number) => Math.round(usd * NANO);
export const fromNano = (nano: number) => Math.round(nano) / NANO;

/** A gateway key as stored in the tenant's partition. */
export interface GatewayKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  keyPrefix: string;
  keyHash: string;
  models: string[] | null;
  maxBudgetUsd: number | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  createdBy: string;
  /** Settled spend, and settled plus reserved (the budget's condition reads this one). */
  usedNano?: number;
  committedNano?: number;
}

export const toKeyAnswer = (k: GatewayKeyRecord) => ({
  id: k.id,
  name: k.name,
  keyPrefix: k.keyPrefix,
  models: k.models ?? null,
  maxBudgetUsd: k.maxBudgetUsd ?? null,
  spendUsd: fromNano(Number(k.usedNano ?? 0)),
  rpmLimit: k.rpmLimit ?? null,
  tpmLimit: k.tpmLimit ?? null,
  expiresAt: k.expiresAt ?? null,
  revokedAt: k.revokedAt ?? null,
  lastUsedAt: k.lastUsedAt ?? null,
  createdAt: k.createdAt,
});

/** Who makes a model call (docs/architecture.md, "LLM gateway"). */
export type Caller =
  | { kind: 'key'; keyId: string }
  | { kind: 'user'; userId: string }
  | { kind: 'agent'; agentId: string };

export const monthOf = (iso: string) => iso.slice(0, 7);
export const dayOf = (iso: string) => iso.slice(0, 10);
