import { keyId } from '#shared/data/keys.ts';
import { invalidApiKey } from '#shared/http/errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import { budgetExceeded, keyExpired, keyRevoked, modelNotFound, tokenLimitReached } from './errors.ts';
import { tenantStandingWith } from '#areas/identity/for-llm-gateway.ts';
import { standingOf, tenantRefused, tenantStanding, type TenantStanding } from './allowance.ts';
import { fallbackChain, listModels, resolveModel } from './catalog.ts';
import { admitRates, settleRates, undoRates, type RateTicket } from './rates.ts';
import {
  gatewayKeys,
  monthOf,
  toNano,
  type Caller,
  type CatalogModel,
  type GatewayKeyRecord,
  type ModelKind,
} from './records.ts';
import { admitLeased, settleLeased, settleRetired, undoLeased, type LeaseTicket } from './leases.ts';
import { recordCall } from './usage.ts';
import {
  forgetRefusal,
  recallRefusal,
  REFUSAL_MEMORY_MS,
  refusedBy,
  refusedByOf,
  rememberRefusal,
} from './refusal-memory.ts';

/**
 * Everything between a model call's request and its provider: the refusals in the spec's order
 * (key 401, model 404, key expired or revoked 401, a suspended or cancelled tenant 403, rpm/tpm 429,
 * key budget 429, tenant allowance 429), the worst case taken from leases (leases.ts, rates.ts),
 * and after the call its use settled into them and the record.
 */

/** The worst case priced at a model's rates, in billionths of a dollar. */
const costNano = (m: CatalogModel, promptTokens: number, completionTokens: number) =>
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
  leases: { allowance: LeaseTicket | null; key: LeaseTicket | null };
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
  if (!model?.isActive || !keyAllows(key, model)) throw modelNotFound(name ?? `(default ${kind} model)`);
  if (model.kind !== kind) throw modelNotFound(model.name, model.kind);
  return model;
}

/** What admission decides on: the caller's key as it is now, the tenant's allowance and state. */
interface Standing {
  key: GatewayKeyRecord | null;
  tenant: TenantStanding;
}

/** One request: the tenant alone, or with the caller's key in one strongly consistent batch. */
async function readStanding(tenantId: string, caller: Caller): Promise<Standing> {
  if (caller.kind !== 'key') return { key: null, tenant: await tenantStanding(tenantId) };
  const keyItem = gatewayKeys.key(tenantId, caller.keyId);
  const { tenant, items } = await tenantStandingWith<GatewayKeyRecord>(tenantId, [keyItem]);
  return { key: items.get(keyId(keyItem)) ?? null, tenant: standingOf(tenant) };
}

/** The fields of a standing that admission's checks and reservations depend on. */
const basis = ({ key, tenant }: Standing) =>
  JSON.stringify([
    key && [key.models, key.maxBudgetUsd, key.rpmLimit, key.tpmLimit, key.expiresAt, key.revokedAt],
    tenant,
  ]);

/**
 * The standing each caller's last call saw, in this instance. Bounded: it only spares round trips,
 * and forgetting it costs one.
 */
const lastSeen = new Map<string, Standing>();
const LAST_SEEN_MAX = 1000;
const callerId = (tenantId: string, caller: Caller) =>
  `${tenantId}|${caller.kind === 'key' ? `k:${caller.keyId}` : caller.kind}`;
function remember(id: string, standing: Standing) {
  if (lastSeen.size >= LAST_SEEN_MAX && !lastSeen.has(id)) lastSeen.clear();
  lastSeen.set(id, standing);
}

/**
 * Admits a call or throws its refusal. The reservations need the key's limits and the tenant's
 * allowance, which must be read fresh (a revocation or a lowered limit counts from the next call).
 * Warm, both go out at once: the reservations on what this caller's last call saw, beside the fresh
 * read; when the fresh read differs in anything they depend on, they are taken back and made again
 * on it. So a warm call waits one round trip before its model is called, a changed one three.
 * A caller just refused for a limit waits the fresh read alone (refusal-memory.ts).
 */
export async function admit(input: AdmitInput): Promise<Admission> {
  const now = input.now ?? Date.now();
  const id = callerId(input.tenantId, input.caller);
  const memo = `${id}|${input.model ?? ''}`;
  const refused = recallRefusal(memo, input.promptTokens + input.maxOutput, now);
  const seen = refused ? undefined : lastSeen.get(id);
  if (!seen) {
    const fresh = await readStanding(input.tenantId, input.caller);
    remember(id, fresh);
    if (refused && basis(fresh) === refused.basis) throw refused.error;
    if (refused) forgetRefusal(memo);
    return reserveRemembering(input, fresh, now, memo);
  }
  const [fresh, attempt] = await Promise.all([
    readStanding(input.tenantId, input.caller),
    // After the read is on its way (its request built, signed and sent in the microtasks before this
    // turn ends): the reservation's CPU then runs while the table answers, not before the read leaves.
    new Promise((sent) => setImmediate(sent))
      .then(() => reserveRemembering(input, seen, now, memo))
      .then(
        (admission) => ({ admission }),
        (refusal: unknown) => ({ refusal }),
      ),
  ]);
  remember(id, fresh);
  if (basis(fresh) === basis(seen)) {
    if ('refusal' in attempt) throw attempt.refusal;
    return attempt.admission;
  }
  if ('admission' in attempt) await takeBack(attempt.admission);
  return reserveRemembering(input, fresh, now, memo);
}

/**
 * Reserves, and remembers a limit's refusal for the calls right after it (refusal-memory.ts). A
 * budget or allowance refusal of a key with rpm or tpm is not remembered: such a call counts
 * against its rate limits first, and may be refused by them instead.
 */
async function reserveRemembering(input: AdmitInput, standing: Standing, now: number, memo: string) {
  try {
    return await reserve(input, standing, now);
  } catch (err) {
    const by = refusedByOf(err);
    const rated = standing.key && (standing.key.rpmLimit !== null || standing.key.tpmLimit !== null);
    if (by && (by === 'rpm' || by === 'tpm' || !rated)) {
      const worstTokens = input.promptTokens + input.maxOutput;
      rememberRefusal(memo, {
        basis: basis(standing),
        until: now + REFUSAL_MEMORY_MS,
        worstTokens,
        refusedBy: by,
        error: err,
      });
    }
    throw err;
  }
}

/**
 * The refusals in the spec's order, then the call's worst case taken from this instance's leases on
 * the key's rpm/tpm window, its budget and the tenant's allowance (a write only when a lease lacks
 * room), together. When one refuses, the others get the call's share back before the refusal is
 * thrown, so a refused call takes nothing.
 */
async function reserve(input: AdmitInput, { key, tenant }: Standing, now: number): Promise<Admission> {
  const { tenantId, caller, requestId } = input;
  if (caller.kind === 'key' && !key) throw invalidApiKey();
  const model = await modelFor(input.model, input.kind, key);
  if (key?.revokedAt) throw keyRevoked();
  if (key?.expiresAt && Date.parse(key.expiresAt) <= now) throw keyExpired();
  if (tenant.refusal) throw tenantRefused(tenant.refusal);

  const worstTokens = input.promptTokens + input.maxOutput;
  // A key's model list bounds its fallbacks too: an answer from a model the key may not use would
  // spend where its owner said no.
  const chain = (await fallbackChain(model)).filter((m) => keyAllows(key, m));
  const worstNano = Math.max(...chain.map((m) => costNano(m, input.promptTokens, input.maxOutput)));
  const [rate, keyLeased, allowanceLeased] = await Promise.allSettled([
    key ? admitRates({ id: key.id, rpmLimit: key.rpmLimit, tpmLimit: key.tpmLimit }, worstTokens, now) : null,
    key
      ? admitLeased(
          tenantId,
          {
            key: gatewayKeys.key(tenantId, key.id),
            unit: 'Nano',
            limit: key.maxBudgetUsd === null ? null : toNano(key.maxBudgetUsd),
          },
          worstNano,
          now,
        )
      : null,
    admitLeased(
      tenantId,
      {
        key: gatewayKeys.allowance(tenantId, monthOf(new Date(now).toISOString())),
        unit: 'Tokens',
        limit: tenant.allowance,
      },
      worstTokens,
      now,
    ),
  ]);
  const admission: Admission = {
    tenantId,
    caller,
    requestId,
    chain,
    key,
    promptTokens: input.promptTokens,
    maxOutput: input.maxOutput,
    leases: {
      allowance: allowanceLeased.status === 'fulfilled' ? allowanceLeased.value : null,
      key: keyLeased.status === 'fulfilled' ? keyLeased.value : null,
    },
    rate: rate.status === 'fulfilled' ? rate.value : null,
    startedAt: now,
  };
  const refusal =
    rate.status === 'rejected'
      ? rate.reason
      : keyLeased.status === 'rejected'
        ? keyLeased.reason
        : key && !keyLeased.value
          ? refusedBy(budgetExceeded(), 'budget')
          : allowanceLeased.status === 'rejected'
            ? allowanceLeased.reason
            : !allowanceLeased.value
              ? refusedBy(tokenLimitReached(), 'allowance')
              : null;
  if (!refusal) return admission;
  undoLeased(admission.leases.allowance);
  undoLeased(admission.leases.key);
  await Promise.all([settleRates(admission.rate, 0, now), settleRetired()]);
  throw refusal;
}

/** Gives an admission's leased room and rate counts back: it is made again on a fresher standing. */
async function takeBack(a: Admission) {
  undoLeased(a.leases.allowance);
  undoLeased(a.leases.key);
  await undoRates(a.rate);
}

export interface Outcome {
  /** The model that answered; null when none did. */
  model: CatalogModel | null;
  promptTokens: number;
  completionTokens: number;
}

/** Work the caller lets run after its answer is out (shared/runtime/after-answer.ts). */
export type Later = (work: () => Promise<unknown>) => void;

/**
 * Settles the call's use into its leases (nothing, when nothing was produced), and records the
 * call once, with what it adds to each lease's usage item. Returns the cost in USD, known before the writes end: a caller that
 * passes `later` gets it at once and the writes finish after its answer.
 */
export async function finish(a: Admission, out: Outcome, later?: Later, now = Date.now()): Promise<number> {
  countMetric('LlmCalls', !out.model ? 'failed' : out.model.id === a.chain[0]!.id ? 'answered' : 'fallback');
  const used = out.model ? out.promptTokens + out.completionTokens : 0;
  const nano = out.model ? costNano(out.model, out.promptTokens, out.completionTokens) : 0;
  const at = new Date(now).toISOString();
  const { allowance, key } = a.leases;
  const leased = [allowance && settleLeased(allowance, used, at), key && settleLeased(key, nano, at)].filter(
    (u) => u !== null,
  );
  // The record and the settles of retired leases are independent writes: one round trip's wait.
  const writes = () =>
    Promise.all([
      settleRetired(),
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
        leases: leased,
      }),
    ]);
  if (later) later(writes);
  else await writes();
  return nano / 1_000_000_000;
}
