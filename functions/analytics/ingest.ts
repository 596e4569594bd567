import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys, type Key } from '#shared/data/keys.ts';
import { updateItem } from '#shared/data/commit.ts';
import { transact, type TransactItem } from '#shared/data/transact.ts';
import { validationError } from '#shared/http/errors.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
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

/** A record's marker outlives any retry of its batch; after this a resent id would count again. */
const MARKER_TTL_SECONDS = 35 * 86_400;
/** TransactWriteItems holds at most 100 items (markers plus the aggregates they touch). */
const TRANSACTION_LIMIT = 100;

type Kind = 'LLM' | 'CONVERSATION';
interface Input {
  llmCalls: (Omit<LlmCall, 'agentId'> & { agentId?: string | null })[];
  conversations: (Omit<Conversation, 'agentId' | 'escalationReason' | 'csat'> & {
    agentId?: string | null;
    escalationReason?: string | null;
    csat?: number | null;
  })[];
}

/** Every tenant named must exist: 400 with the first place each unknown one appears. */
async function checkTenants(input: Input) {
  const firstSeen = new Map<string, string>();
  input.llmCalls.forEach(
    (c, i) =>
      firstSeen.has(c.tenantId.toLowerCase()) || firstSeen.set(c.tenantId.toLowerCase(), `body.llmCalls.${i}.tenantId`),
  );
  input.conversations.forEach(
    (c, i) =>
      firstSeen.has(c.tenantId.toLowerCase()) ||
      firstSeen.set(c.tenantId.toLowerCase(), `body.conversations.${i}.tenantId`),
  );
  const unknown = await Promise.all(
    [...firstSeen].map(async ([tenantId, path]) => {
      const out = await ddb().send(
        new GetCommand({
          TableName: config.tableName,
          Key: keys.platformItem('TENANT', tenantId),
          ProjectionExpression: 'pk',
        }),
      );
      return out.Item ? null : { path, message: 'No such tenant' };
    }),
  );
  const problems = unknown.filter((p) => p !== null);
  if (problems.length) throw validationError(problems.slice(0, 50));
}

function toTransactItems(
  chunk: Counted<{ kind: Kind }>[],
  now: number,
): { markers: TransactItem[]; updates: TransactItem[] } {
  const markers = chunk.map(
    (r): TransactItem => ({
      Put: {
        TableName: config.tableName,
        Item: { ...r.marker, countedAt: new Date(now).toISOString(), ttl: Math.floor(now / 1000) + MARKER_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    }),
  );
  const updates = mergeContributions(chunk.flatMap((r) => r.contributions)).map((c: Contribution) =>
    updateItem(c.key, c.set ?? {}, { add: { ...c.add, ...(c.agents?.length ? { agents: new Set(c.agents) } : {}) } }),
  );
  return { markers, updates };
}

/**
 * Counts each record once into its tenant's day aggregates. A chunk's markers and aggregate
 * updates commit together, so a record is either counted and marked or neither; a marker that
 * exists already (a retried batch) cancels the chunk, which is then retried without it.
 */
async function commitChunk(
  chunk: Counted<{ kind: Kind }>[],
): Promise<{ counted: Counted<{ kind: Kind }>[]; duplicates: number }> {
  let pending = chunk;
  let duplicates = 0;
  while (pending.length) {
    const { markers, updates } = toTransactItems(pending, Date.now());
    const outcome = await transact([...markers, ...updates]);
    if (outcome.ok) return { counted: pending, duplicates };
    const seen = new Set(outcome.failedAt.filter((i) => i < markers.length));
    if (!seen.size) throw new Error('An aggregate update failed a condition it does not have');
    duplicates += seen.size;
    pending = pending.filter((_, i) => !seen.has(i));
  }
  return { counted: [], duplicates };
}

const markerId = (key: Key) => `${key.pk}|${key.sk}`;
/** DynamoDB keeps magnitudes down to 1e-130 only: costs to a billionth of a dollar, times to a microsecond. */
const fixed = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

export async function ingest(input: Input) {
  await checkTenants(input);
  const records: Counted<{ kind: Kind }>[] = [
    ...input.llmCalls.map((c) => {
      const call: LlmCall = {
        ...c,
        tenantId: c.tenantId.toLowerCase(),
        agentId: c.agentId?.toLowerCase() ?? null,
        costUsd: fixed(c.costUsd, 9),
        latencyMs: fixed(c.latencyMs, 3),
      };
      return {
        marker: keys.usageEvent(call.tenantId, 'LLM', c.id),
        record: { kind: 'LLM' as const },
        contributions: llmContributions(call),
      };
    }),
    ...input.conversations.map((c) => {
      const conv: Conversation = {
        ...c,
        durationSeconds: fixed(c.durationSeconds, 3),
        tenantId: c.tenantId.toLowerCase(),
        agentId: c.agentId?.toLowerCase() ?? null,
        escalationReason: c.escalationReason ?? null,
        csat: c.csat ?? null,
      };
      return {
        marker: keys.usageEvent(conv.tenantId, 'CONVERSATION', c.id),
        record: { kind: 'CONVERSATION' as const },
        contributions: conversationContributions(conv),
      };
    }),
  ];
  // The same id twice in one batch counts once, like a retried batch.
  const seen = new Set<string>();
  const unique = records.filter((r) => !seen.has(markerId(r.marker)) && !!seen.add(markerId(r.marker)));
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
