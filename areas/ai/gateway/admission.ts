import { ApiError } from '#shared/http/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { tokenAllowance } from './allowance.ts';
import { fallbackChain, listModels, resolveModel } from './catalog.ts';
import { currentKey } from './gateway-keys.ts';
import { admitRates, settleRates, type RateTicket } from './rates.ts';
import {
  gatewayKeys,
  monthOf,
  toNano,
  type Caller,
  type CatalogModel,
  type GatewayKeyRecord,
  type ModelKind,
} from './records.ts';
import { hold, release, settle, type Hold } from './reservations.ts';
import { recordCall } from './usage.ts';

/**
 * Everything between a model call's request and its provider: the refusals in the spec's order
 * (key 401, model 404, key expired or revoked 401, rpm/tpm 429, key budget 429, tenant allowance
 * 429), the worst-case reservations, and after the call the settle (or release) and the record.
 */
export const invalidApiKey = () => new ApiError(401, 'INVALID_API_KEY', 'Incorrect API key provided');
const modelNotFound = (name: string) =>
  new ApiError(404, 'MODEL_NOT_FOUND', `The model '${name}' does not exist or you do not have access to it`);
const budgetExceeded = () => new ApiError(429, 'BUDGET_EXCEEDED', "This key's budget is used up (maxBudgetUsd)");
/** Every provider of the chain failed: 503, retryable (the reservation was released). */
export const upstreamFailed = () =>
  new ApiError(503, 'UPSTREAM_ERROR', 'The model provider failed; try again', undefined, { 'retry-after': '1' });
export const tokenLimitReached = () =>
  new ApiError(429, 'TOKEN_LIMIT_REACHED', "The month's token allowance of this tenant is used up");

/** The worst case priced at a model's rates, in billionths of a dollar. */
export const costNano = (m: CatalogModel, promptTokens: number, completionTokens: number) =>
  toNano((promptTokens * m.inputPricePerMillion + completionTokens * m.outputPricePerMillion) / 1_000_000);

export interface AdmitInput {
  tenantId: string;
  caller: Caller;
  requestId: string;
  model: string | null;
  kind: ModelKind;
  promptTokens: number;
  /** Output tokens the call may produce (0 for embeddings). */
  maxOutput: number;
  now?: number;
}

export interface Admission {
  tenantId: string;
  caller: Caller;
  requestId: string;
  chain: CatalogModel[];
  key: GatewayKeyRecord | null;
  promptTokens: number;
  maxOutput: number;
  holds: { allowance: Hold; key: Hold | null };
  rate: RateTicket | null;
  startedAt: number;
}

/** A model the caller may use: active, of the kind, and allowed by the key's model list. */
export const keyAllows = (key: Pick<GatewayKeyRecord, 'models'> | null, m: CatalogModel) =>
  !key?.models || key.models.includes(m.name) || key.models.includes(m.id);

async function modelFor(name: string | null, kind: ModelKind, key: GatewayKeyRecord | null) {
  const model = name
    ? await resolveModel(name)
    : (await listModels({ kind, activeOnly: true })).find((m) => keyAllows(key, m));
  if (!model || !model.isActive || model.kind !== kind || !keyAllows(key, model))
    throw modelNotFound(name ?? `(default ${kind} model)`);
  return model;
}

export async function admit(input: AdmitInput): Promise<Admission> {
  const now = input.now ?? Date.now();
  const { tenantId, caller, requestId } = input;
  // Independent reads in parallel: the key as it is now, the tenant's allowance, the catalog (cached).
  const [found, allowance] = await Promise.all([
    caller.kind === 'key' ? currentKey(tenantId, caller.keyId) : null,
    tokenAllowance(tenantId),
  ]);
  const key = found ?? null;
  if (caller.kind === 'key' && !key) throw invalidApiKey();
  const model = await modelFor(input.model, input.kind, key);
  if (key?.revokedAt) throw new ApiError(401, 'KEY_REVOKED', 'This API key has been revoked');
  if (key?.expiresAt && Date.parse(key.expiresAt) <= now)
    throw new ApiError(401, 'KEY_EXPIRED', 'This API key has expired');

  const worstTokens = input.promptTokens + input.maxOutput;
  const rate = key
    ? await admitRates({ id: key.id, rpmLimit: key.rpmLimit, tpmLimit: key.tpmLimit }, worstTokens, now)
    : null;
  const chain = await fallbackChain(model);
  const worstNano = Math.max(...chain.map((m) => costNano(m, input.promptTokens, input.maxOutput)));
  const keyHold: Hold | null = key
    ? {
        key: gatewayKeys.key(tenantId, key.id),
        unit: 'Nano',
        amount: worstNano,
        limit: key.maxBudgetUsd === null ? null : toNano(key.maxBudgetUsd),
      }
    : null;
  const allowanceHold: Hold = {
    key: gatewayKeys.allowance(tenantId, monthOf(new Date(now).toISOString())),
    unit: 'Tokens',
    amount: worstTokens,
    limit: allowance,
  };
  if (keyHold && !(await hold(keyHold, requestId, {}, now))) {
    await settleRates(rate, 0, now);
    throw budgetExceeded();
  }
  if (!(await hold(allowanceHold, requestId, {}, now))) {
    if (keyHold) await release(keyHold.key, requestId, 'Nano', keyHold.amount);
    await settleRates(rate, 0, now);
    throw tokenLimitReached();
  }
  return {
    tenantId,
    caller,
    requestId,
    chain,
    key,
    promptTokens: input.promptTokens,
    maxOutput: input.maxOutput,
    holds: { allowance: allowanceHold, key: keyHold },
    rate,
    startedAt: now,
  };
}

export interface Outcome {
  /** The model that answered; null when none did. */
  model: CatalogModel | null;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Settles the reservations to what the call used (released when nothing was produced), and
 * records the call once. Returns the cost in USD.
 */
export async function finish(a: Admission, out: Outcome, now = Date.now()): Promise<number> {
  countMetric('LlmCalls', !out.model ? 'failed' : out.model.id === a.chain[0]!.id ? 'answered' : 'fallback');
  const used = out.model ? out.promptTokens + out.completionTokens : 0;
  const nano = out.model ? costNano(out.model, out.promptTokens, out.completionTokens) : 0;
  const at = new Date(now).toISOString();
  const { allowance, key } = a.holds;
  // The settle and the record are independent writes: one round trip's wait, not two.
  await Promise.all([
    used ? settle(allowance, a.requestId, used) : release(allowance.key, a.requestId, 'Tokens', allowance.amount),
    key && settle(key, a.requestId, nano, { lastUsedAt: at }),
    settleRates(a.rate, used, now),
    recordCall({
      tenantId: a.tenantId,
      caller: a.caller,
      requestId: a.requestId,
      model: (out.model ?? a.chain[0]!).name,
      promptTokens: out.model ? out.promptTokens : 0,
      completionTokens: out.model ? out.completionTokens : 0,
      costNano: nano,
      latencyMs: now - a.startedAt,
      isError: !out.model,
      at,
    }),
  ]);
  return nano / 1_000_000_000;
}
