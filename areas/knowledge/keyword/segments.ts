import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { putNew, type TransactItem } from '#shared/data/commit.ts';
import { getMany, get } from '#shared/data/read.ts';
import { isConditionFailure } from '#shared/data/condition-failure.ts';
import { keyId } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { inParallel } from '#shared/runtime/in-parallel.ts';
import { timeOrderedId } from '#shared/data/time-ordered-id.ts';
import { postingKey, segmentKey, segmentMemberKey } from '../records.ts';
import { commitGroup, dfMove, type DocumentTerms, PARALLEL_WRITES, PART_ENTRIES, TERMS_PER_WRITE } from './postings.ts';

/**
 * Keyword postings shared by the documents one delivery indexes together (docs/decisions/knowledge.md,
 * "Keyword segments"). A posting item per term and segment maps each member document to its
 * `position:tf:length` entries (`e`), and the term's df moves once per segment, not once per
 * document: abstracts of one batch share most of their words, so a segment of 500 writes about a
 * sixth of the items their own postings would.
 *
 * A segment's record lists its members and fixes, per term, the impact its posting is keyed by and
 * (by the terms' sorted order) the transaction that writes it. A member's entry names its segment,
 * and is written before any posting: a redelivery finds it and rebuilds the same transactions from
 * the members' chunks, each refused whole by its conditions if it was written before; a purge takes
 * a member out of the same groups, so a group is either wholly in the index or wholly not.
 */
export const SEGMENT_DOCUMENTS = 500;
/** Chunks of one segment: a term's entries in it fit one item, as a document's part does. */
export const SEGMENT_CHUNKS = PART_ENTRIES;
/** Distinct terms of one segment: its record (their impacts) stays far below DynamoDB's 400 KB. */
export const SEGMENT_TERMS = 10_000;

export interface SegmentMember {
  documentId: string;
  chunks: number;
  terms: DocumentTerms;
}

interface SegmentRecord {
  segmentId: string;
  members: string[];
  /** Each term's impact (its posting's sort key); the sorted terms' order groups the writes. */
  impacts: Record<string, number>;
}

const termsOf = (m: SegmentMember) => m.terms.postings.keys();

/** A member too large to share items with others is indexed alone, in its own postings. */
export const fitsSegment = (m: SegmentMember) => m.chunks <= SEGMENT_CHUNKS && m.terms.postings.size <= SEGMENT_TERMS;

/** Members packed in order into segments within the bounds above. */
export function packSegments(members: SegmentMember[]): SegmentMember[][] {
  const out: SegmentMember[][] = [];
  let current: SegmentMember[] = [];
  let chunks = 0;
  let terms = new Set<string>();
  for (const m of members) {
    const added = [...termsOf(m)].filter((t) => !terms.has(t)).length;
    if (
      current.length &&
      (current.length >= SEGMENT_DOCUMENTS || chunks + m.chunks > SEGMENT_CHUNKS || terms.size + added > SEGMENT_TERMS)
    ) {
      out.push(current);
      current = [];
      chunks = 0;
      terms = new Set();
    }
    current.push(m);
    chunks += m.chunks;
    for (const t of termsOf(m)) terms.add(t);
  }
  if (current.length) out.push(current);
  return out;
}

const impactsOf = (members: SegmentMember[]) => {
  const impacts: Record<string, number> = {};
  for (const m of members)
    for (const [term, parts] of m.terms.postings) impacts[term] = Math.max(impacts[term] ?? 0, parts[0]!.impact);
  return impacts;
};

/** The sorted terms in groups of TERMS_PER_WRITE: group i is always written (and purged) by one transaction. */
const groupsOf = (impacts: Record<string, number>) => {
  const sorted = Object.keys(impacts).sort();
  const out: string[][] = [];
  for (let i = 0; i < sorted.length; i += TERMS_PER_WRITE) out.push(sorted.slice(i, i + TERMS_PER_WRITE));
  return out;
};

/**
 * A new segment for `members`: its record, then each member's entry naming it (a member already
 * in another segment stays there). Returns the members it holds.
 */
async function claimSegment(tenantId: string, kbId: string, members: SegmentMember[]) {
  const record: SegmentRecord = {
    segmentId: timeOrderedId(),
    members: members.map((m) => m.documentId),
    impacts: impactsOf(members),
  };
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...segmentKey(tenantId, kbId, record.segmentId), ...record, createdAt: new Date().toISOString() },
    }),
  );
  const held: SegmentMember[] = [];
  await inParallel(members, PARALLEL_WRITES, async (m) => {
    try {
      await ddb().send(
        new PutCommand({
          TableName: config.tableName,
          Item: { ...segmentMemberKey(tenantId, kbId, m.documentId), segmentId: record.segmentId },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      held.push(m);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  });
  return { record, held };
}

/** The segment each document's entry names, if it has one. */
export async function segmentsOf(tenantId: string, kbId: string, documentIds: string[]) {
  const keyList = documentIds.map((d) => segmentMemberKey(tenantId, kbId, d));
  const found = await getMany<{ segmentId: string }>(keyList, { consistent: true });
  const out = new Map<string, string>();
  documentIds.forEach((d, i) => {
    const entry = found.get(keyId(keyList[i]!));
    if (entry) out.set(d, entry.segmentId);
  });
  return out;
}

const readSegment = (tenantId: string, kbId: string, segmentId: string) =>
  get<SegmentRecord>(segmentKey(tenantId, kbId, segmentId), { consistent: true });

/** The posting items of `members` in the record's groups: each group one transaction, skipped when written before. */
async function writeGroups(tenantId: string, kbId: string, record: SegmentRecord, members: SegmentMember[]) {
  await inParallel(groupsOf(record.impacts), PARALLEL_WRITES, async (terms) => {
    const items: TransactItem[] = [];
    for (const term of terms) {
      const entries: Record<string, string> = {};
      let chunks = 0;
      for (const m of members) {
        const part = m.terms.postings.get(term)?.[0];
        if (!part) continue;
        entries[m.documentId] = part.entries;
        chunks += part.chunks;
      }
      if (!chunks) continue;
      const key = postingKey(tenantId, kbId, term, {
        impact: record.impacts[term]!,
        documentId: record.segmentId,
        part: 0,
      });
      items.push(putNew({ ...key, segmentId: record.segmentId, n: chunks, e: entries }));
      items.push(dfMove(tenantId, kbId, term, chunks));
    }
    if (items.length) await commitGroup(items);
  });
}

/**
 * Indexes `members` (documents of one base, each with its chunks' terms) in shared postings. A
 * member that already names a segment (a redelivery) goes back into that one, rebuilt with its
 * members still named there, whose terms `termsOfMember` reads from their stored chunks when they
 * are not among `members`. Returns each member's segment.
 */
export async function indexInSegments(
  tenantId: string,
  kbId: string,
  members: SegmentMember[],
  termsOfMember: (documentId: string) => Promise<SegmentMember | null>,
): Promise<Map<string, string>> {
  const named = await segmentsOf(
    tenantId,
    kbId,
    members.map((m) => m.documentId),
  );
  const out = new Map(named);
  const fresh = members.filter((m) => !named.has(m.documentId));
  for (const group of packSegments(fresh)) {
    const { record, held } = await claimSegment(tenantId, kbId, group);
    await writeGroups(tenantId, kbId, record, held);
    for (const m of held) out.set(m.documentId, record.segmentId);
  }
  const inHand = new Map(members.map((m) => [m.documentId, m]));
  for (const segmentId of new Set(named.values())) {
    const record = await readSegment(tenantId, kbId, segmentId);
    if (!record) continue;
    const stillNamed = await segmentsOf(tenantId, kbId, record.members);
    const rebuilt: SegmentMember[] = [];
    for (const d of record.members) {
      if (stillNamed.get(d) !== segmentId) continue;
      const m = inHand.get(d) ?? (await termsOfMember(d));
      if (m) rebuilt.push(m);
    }
    await writeGroups(tenantId, kbId, record, rebuilt);
  }
  return out;
}

/**
 * Takes a document out of its segment: in each of the record's groups one transaction removes its
 * entries from the group's postings and its chunks from their df, under the condition that its
 * entries are there, so a second purge (or one of a group never written) changes nothing. Then its
 * entry naming the segment goes. False when the document names no segment.
 */
export async function removeFromSegment(
  tenantId: string,
  kbId: string,
  documentId: string,
  terms: DocumentTerms,
): Promise<boolean> {
  const segmentId = (await segmentsOf(tenantId, kbId, [documentId])).get(documentId);
  if (!segmentId) return false;
  const record = await readSegment(tenantId, kbId, segmentId);
  if (record)
    await inParallel(groupsOf(record.impacts), PARALLEL_WRITES, async (group) => {
      const items: TransactItem[] = [];
      for (const term of group) {
        const part = terms.postings.get(term)?.[0];
        if (!part) continue;
        items.push({
          Update: {
            TableName: config.tableName,
            Key: postingKey(tenantId, kbId, term, { impact: record.impacts[term]!, documentId: segmentId, part: 0 }),
            UpdateExpression: 'REMOVE e.#d ADD n :less',
            ConditionExpression: 'attribute_exists(e.#d)',
            ExpressionAttributeNames: { '#d': documentId },
            ExpressionAttributeValues: { ':less': -part.chunks },
          },
        });
        items.push(dfMove(tenantId, kbId, term, -part.chunks));
      }
      if (items.length) await commitGroup(items);
    });
  // Gone, so a rebuild of the segment leaves it out and the document, queued again, gets a new one.
  await ddb().send(
    new DeleteCommand({ TableName: config.tableName, Key: segmentMemberKey(tenantId, kbId, documentId) }),
  );
  return true;
}
