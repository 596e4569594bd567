import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, deleteItem, orConflict, putItem, putNew } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { ApiError, conflict, validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import {
  gatewayKeys,
  modelRecord,
  catalogItems,
  toModel,
  type CatalogModel,
  type ModelInput,
  type ModelKind,
} from './records.ts';

export type { ModelInput } from './records.ts';

/**
 * The model catalog (platform items, SystemAdmin writes). A call reads the whole catalog with one
 * Query and keeps it for CACHE_MS in the container: a catalog change reaches warm functions within
 * that time (at once in the function that made it).
 */
const CACHE_MS = 5_000;
let cached: { at: number; models: Promise<CatalogModel[]> } | undefined;

export function forgetCatalog() {
  cached = undefined;
}

async function loadCatalog(): Promise<CatalogModel[]> {
  const items = await queryItems<Record<string, unknown>>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': gatewayKeys.models() },
  });
  return items.filter((i) => typeof i.id === 'string' && typeof i.name === 'string').map(toModel);
}

function catalog(now = Date.now()): Promise<CatalogModel[]> {
  if (!cached || now - cached.at > CACHE_MS) {
    const models = loadCatalog();
    cached = { at: now, models };
    models.catch(() => (cached = undefined));
  }
  return cached.models;
}

export async function getModel(id: string): Promise<CatalogModel | null> {
  return (await catalog()).find((m) => m.id === id) ?? null;
}

/** A model by its catalog name (the OpenAI `model` string) or its id. */
export async function resolveModel(nameOrId: string): Promise<CatalogModel | null> {
  const all = await catalog();
  return all.find((m) => m.name === nameOrId) ?? all.find((m) => m.id === nameOrId.toLowerCase()) ?? null;
}

/**
 * Why a record may not name this model for calls of this kind (null when it may): a knowledge base's
 * embedding model, a prompt's chat model. Checked when the reference is written, so a bad id is a
 * 400 there, not a failure of every later call that uses it.
 */
export async function modelReferenceRefusal(id: string, kind: ModelKind): Promise<string | null> {
  const model = await getModel(id.toLowerCase());
  if (!model) return 'No such model in the catalog';
  if (model.kind !== kind) return `Not a ${kind} model (${model.name} is a ${model.kind} model)`;
  if (!model.isActive) return `The model ${model.name} is not active`;
  return null;
}

export async function listModels(opts: { kind?: ModelKind; activeOnly?: boolean } = {}): Promise<CatalogModel[]> {
  return (await catalog())
    .filter((m) => (!opts.kind || m.kind === opts.kind) && (!opts.activeOnly || m.isActive))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The model a call that names none gets: the first active model of the kind by name (admission's rule). */
export async function defaultModel(kind: ModelKind): Promise<CatalogModel | null> {
  return (await listModels({ kind, activeOnly: true }))[0] ?? null;
}

/** The model and its fallbacks in order (each once, active ones only after the first). */
export async function fallbackChain(model: CatalogModel): Promise<CatalogModel[]> {
  const all = await catalog();
  const chain = [model];
  for (const id of model.fallbackModelIds) {
    const next = all.find((m) => m.id === id);
    if (next?.isActive && next.kind === model.kind && !chain.some((m) => m.id === next.id)) chain.push(next);
  }
  return chain;
}

const nameTaken = (name: string) => conflict(`A model named '${name}' exists already`);

/**
 * Creates or replaces a catalog entry (PUT by id). Its name is unique (a claim item); fallbacks must
 * be other models of the same kind already in the catalog.
 */
export async function putModel(
  id: string,
  input: ModelInput,
  actor: Principal | null,
  now = new Date().toISOString(),
  audited = true,
) {
  const existing = await get<Record<string, unknown>>(gatewayKeys.model(id), { consistent: true });
  const before = existing ? toModel(existing) : null;
  const all = await loadCatalog();
  const problems = input.fallbackModelIds.flatMap((fid, i) => {
    const f = all.find((m) => m.id === fid);
    if (fid === id) return [{ path: `body.fallbackModelIds.${i}`, message: 'A model cannot fall back to itself' }];
    if (!f) return [{ path: `body.fallbackModelIds.${i}`, message: 'No such model in the catalog' }];
    if (f.kind !== input.kind) return [{ path: `body.fallbackModelIds.${i}`, message: `Not a ${input.kind} model` }];
    return [];
  });
  if (input.provider === 'openai-compatible' && !input.baseUrl)
    problems.push({ path: 'body.baseUrl', message: 'Required for an openai-compatible model' });
  if (problems.length) throw validationError(problems);
  const model = modelRecord(id, input, now, before?.createdAt ?? now);
  const items = catalogItems(model);
  const renamed = before && before.name !== model.name;
  await commitChange(
    [
      putItem(items.model),
      (!before || renamed) &&
        orConflict(putNew({ ...gatewayKeys.modelName(model.name), modelId: id }), nameTaken(model.name)),
      renamed && deleteItem(gatewayKeys.modelName(before.name)),
    ],
    audited
      ? {
          tenantId: null,
          actor,
          entityType: 'LlmModel',
          entityId: id,
          action: before ? 'update' : 'create',
          changes: { ...input, apiKeySecret: input.apiKeySecret ? '(set)' : null },
        }
      : null,
    { now },
  );
  forgetCatalog();
  return { model, created: !before };
}

/** Fixed ids, so re-seeding never duplicates and prompts, agents and tests can name them. */
export const LOCAL_MODEL_IDS = {
  chat: '6f1d0c3e-2b1a-4c8e-9f00-000000000001',
  chatLarge: '6f1d0c3e-2b1a-4c8e-9f00-000000000002',
  flaky: '6f1d0c3e-2b1a-4c8e-9f00-000000000003',
  embed: '6f1d0c3e-2b1a-4c8e-9f00-000000000004',
  gullible: '6f1d0c3e-2b1a-4c8e-9f00-000000000005',
  rerank: '6f1d0c3e-2b1a-4c8e-9f00-000000000006',
} as const;

/** The local deterministic models (providers/local-model.ts), seeded locally and in tests. */
export const LOCAL_MODELS: readonly (ModelInput & { id: string })[] = [
  {
    id: LOCAL_MODEL_IDS.chat,
    name: 'local-chat',
    provider: 'local',
    providerModel: 'echo',
    kind: 'chat',
    inputPricePerMillion: 1,
    outputPricePerMillion: 2,
    contextWindow: 128_000,
    fallbackModelIds: [],
    isActive: true,
  },
  {
    id: LOCAL_MODEL_IDS.chatLarge,
    name: 'local-chat-large',
    provider: 'local',
    providerModel: 'echo',
    kind: 'chat',
    inputPricePerMillion: 5,
    outputPricePerMillion: 15,
    contextWindow: 200_000,
    fallbackModelIds: [LOCAL_MODEL_IDS.chat],
    isActive: true,
  },
  {
    id: LOCAL_MODEL_IDS.flaky,
    name: 'local-flaky',
    provider: 'local',
    providerModel: 'flaky',
    kind: 'chat',
    inputPricePerMillion: 3,
    outputPricePerMillion: 6,
    contextWindow: 128_000,
    fallbackModelIds: [LOCAL_MODEL_IDS.chat],
    isActive: true,
  },
  {
    id: LOCAL_MODEL_IDS.gullible,
    name: 'local-gullible',
    provider: 'local',
    providerModel: 'gullible',
    kind: 'chat',
    inputPricePerMillion: 1,
    outputPricePerMillion: 2,
    contextWindow: 128_000,
    fallbackModelIds: [],
    isActive: true,
  },
  {
    id: LOCAL_MODEL_IDS.embed,
    name: 'local-embed',
    provider: 'local',
    providerModel: 'hashing-256',
    kind: 'embedding',
    inputPricePerMillion: 0.02,
    outputPricePerMillion: 0,
    contextWindow: 8_192,
    fallbackModelIds: [],
    isActive: true,
  },
  {
    id: LOCAL_MODEL_IDS.rerank,
    name: 'local-rerank',
    provider: 'local',
    providerModel: 'overlap',
    kind: 'rerank',
    inputPricePerMillion: 0.05,
    outputPricePerMillion: 0,
    contextWindow: 4_096,
    fallbackModelIds: [],
    isActive: true,
  },
];

/** Seeds the local models unless present (an administrator may have edited them); returns how many were new. */
export async function seedCatalog(): Promise<number> {
  let added = 0;
  // In order: a model's fallbacks must exist before it.
  for (const { id, ...input } of [...LOCAL_MODELS].sort(
    (a, b) => a.fallbackModelIds.length - b.fallbackModelIds.length,
  )) {
    if (await get(gatewayKeys.model(id), { consistent: true, attributes: ['pk'] })) continue;
    try {
      // Reference data, like plans: seeded without an audit entry.
      await putModel(id, input, null, '2026-01-01T00:00:00.000Z', false);
      added++;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    }
  }
  return added;
}
