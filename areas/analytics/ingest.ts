import { tenantExists } from '#areas/identity/for-analytics.ts';
import { commitChange, orConflict, updateItem, type Write } from '#shared/data/commit.ts';
import { keyId } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { validationError, type ApiError } from '#shared/http/errors.ts';
import { countedBefore } from './errors.ts';
import { countMetric } from '#shared/runtime/metrics.ts';
import {
  conversationContributions,
  llmContributions,
  mergeContributions,
  planChunks,
  type Contribution,
  type Conversation,
  type Counted,
  type LlmCall,
} from './aggregate.ts';
import { markerPut, usageEvent, type EventKind } from './records.ts';

/** TransactWriteItems holds at most 100 items (markers plus the aggregates they touch). */
const TRANSACTION_LIMIT = 100;

interface Input {
  llmCalls: (Omit<LlmCall, 'agentId'> & {
    agentId?: string | null;
    /**
     * In process only: the caller's own counters for this call (the gateway's usage per day, model
     * and key), committed in the record's transaction, so they count exactly when the record does.
     */
    alsoCount?: Contribution[];
  })[];
  conversations: (Omit<Conversation, 'agentId' | 'escalationReason' | 'csat'> & {
    agentId?: string | null;
    escalationReason?: string | null;
    csat?: number | null;
  })[];
}

/** Every tenant named must exist: 400 with the first place each unknown one appears. */
async function checkTenants(input: Input) {
  const firstSeen = new Map<string, string>();
  const note = (tenantId: string, path: string) => {
    if (!firstSeen.has(tenantId)) firstSeen.set(tenantId, path);
  };
  for (const [i, c] of input.llmCalls.entries()) note(c.tenantId, `body.llmCalls.${i}.tenantId`);
  for (const [i, c] of input.conversations.entries()) note(c.tenantId, `body.conversations.${i}.tenantId`);
  const unknown = await Promise.all(
    [...firstSeen].map(async ([tenantId, path]) =>
      (await tenantExists(tenantId)) ? null : { path, message: 'No such tenant' },
    ),
  );
  const problems = unknown.filter((p) => p !== null);
  if (problems.length) throw validationError(problems.slice(0, 50));
}

type Record_ = Counted<{ kind: EventKind }>;

/** A chunk's markers and aggregate updates; a marker's failed condition throws its `seen` entry (counted before). */
function writesOf(chunk: Record_[], seen: ApiError[], now: number): Write[] {
  const markers = chunk.map((r, i) => orConflict(markerPut(r.marker, now), seen[i]!));
  const updates = mergeContributions(chunk.flatMap((r) => r.contributions)).map((c: Contribution) =>
    updateItem(c.key, c.set ?? {}, { add: { ...c.add, ...(c.agents?.length ? { agents: new Set(c.agents) } : {}) } }),
  );
  return [...markers, ...updates];
}

/**
 * Counts each record once into its tenant's day aggregates. A chunk's markers and aggregate
 * updates commit together, so a record is either counted and marked or neither. A marker that
 * exists already (a retried batch) cancels the chunk: the chunk's markers are then read to drop
 * every record counted before, and the rest is committed again.
 */
async function commitChunk(chunk: Record_[]): Promise<{ counted: Record_[]; duplicates: number }> {
  let pending = chunk;
  let duplicates = 0;
  while (pending.length) {
    const counted = pending.map(() => countedBefore());
    try {
      await commitChange(writesOf(pending, counted, Date.now()), null);
      return { counted: pending, duplicates };
    } catch (err) {
      const index = counted.indexOf(err as ApiError);
      if (index < 0) throw err;
      const seen = await Promise.all(
        pending.map(async (r, i) => i === index || !!(await get(r.marker, { consistent: true, attributes: ['pk'] }))),
      );
      duplicates += seen.filter(Boolean).length;
      pending = pending.filter((_, i) => !seen[i]);
    }
  }
  return { counted: [], duplicates };
}

/** DynamoDB keeps magnitudes down to 1e-130 only: costs to a billionth of a dollar, times to a microsecond. */
const fixed = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * `tenantsKnown`: the caller vouches that every tenant named exists (the gateway records calls of
 * tenants it has just admitted), so the existence reads are skipped.
 */
export async function ingest(input: Input, opts: { tenantsKnown?: boolean } = {}) {
  if (!opts.tenantsKnown) await checkTenants(input);
  const records: Record_[] = [
    ...input.llmCalls.map(({ alsoCount, ...c }) => {
      const call: LlmCall = {
        ...c,
        agentId: c.agentId ?? null,
        costUsd: fixed(c.costUsd, 9),
        latencyMs: fixed(c.latencyMs, 3),
      };
      return {
        marker: usageEvent(call.tenantId, 'LLM', c.id),
        record: { kind: 'LLM' as const },
        contributions: [...llmContributions(call), ...(alsoCount ?? [])],
      };
    }),
    ...input.conversations.map((c) => {
      const conv: Conversation = {
        ...c,
        durationSeconds: fixed(c.durationSeconds, 3),
        agentId: c.agentId ?? null,
        escalationReason: c.escalationReason ?? null,
        csat: c.csat ?? null,
      };
      return {
        marker: usageEvent(conv.tenantId, 'CONVERSATION', c.id),
        record: { kind: 'CONVERSATION' as const },
        contributions: conversationContributions(conv),
      };
    }),
  ];
  // The same id twice in one batch counts once, like a retried batch.
  const seen = new Set<string>();
  const unique = records.filter((r) => !seen.has(keyId(r.marker)) && !!seen.add(keyId(r.marker)));
  let duplicates = records.length - unique.length;
  let accepted = 0;
  // Sequential: chunks share aggregate items, and parallel transactions on them would conflict.
  for (const chunk of planChunks(unique, TRANSACTION_LIMIT)) {
    const result = await commitChunk(chunk);
    duplicates += result.duplicates;
    accepted += result.counted.length;
    for (const kind of ['LLM', 'CONVERSATION'] as const) {
      const n = result.counted.filter((r) => r.record.kind === kind).length;
      if (n) countMetric('UsageRecorded', kind.toLowerCase(), n);
    }
  }
  if (duplicates) countMetric('UsageDuplicateIgnored', 'batch', duplicates);
  return { accepted, duplicates };
}

/**
 * The writes that count one finished conversation (its marker and the aggregates it adds to), for
 * the conversations area to put in the very transaction that closes the conversation: the close and
 * its record commit together, so a retried or concurrent close counts once and none is lost.
 */
export function conversationRecordWrites(c: Conversation, now = Date.now()): Write[] {
  const conv = { ...c, durationSeconds: fixed(c.durationSeconds, 3) };
  return writesOf(
    [
      {
        marker: usageEvent(conv.tenantId, 'CONVERSATION', conv.id),
        record: { kind: 'CONVERSATION' },
        contributions: conversationContributions(conv),
      },
    ],
    [countedBefore()],
    now,
  );
}
