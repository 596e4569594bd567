import { queryItems } from '#shared/data/query.ts';
import { config } from '#shared/platform/config.ts';
import type { KeywordEntry } from './keyword-index.ts';
import { chunkList, documentList, type BaseRecord, type ChunkRecord, type DocumentRecord } from './records.ts';

/**
 * Every keyword entry a base should hold, read from its chunk items (the source of truth the index
 * is derived from): the chunks of its documents that are Indexed or being indexed. A deleted
 * document's item is gone before its chunks are, so its leftovers are not brought back. Costs one
 * Query per document and per page of chunks: a repair, never on the path of a healthy base.
 */
export async function keywordEntriesOf(base: Pick<BaseRecord, 'tenantId' | 'id'>): Promise<KeywordEntry[]> {
  const docs = await queryItems<Pick<DocumentRecord, 'id' | 'status'>>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': documentList(base.tenantId, base.id) },
    ProjectionExpression: 'id, #st',
    ExpressionAttributeNames: { '#st': 'status' },
  });
  const entries: KeywordEntry[] = [];
  for (const d of docs) {
    if (d.status !== 'Indexed' && d.status !== 'Processing') continue;
    const chunks = await queryItems<Pick<ChunkRecord, 'chunkId' | 'text' | 'documentId' | 'position'>>({
      TableName: config.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': chunkList(base.tenantId, base.id, d.id) },
      ProjectionExpression: 'chunkId, #tx, documentId, #ps',
      ExpressionAttributeNames: { '#tx': 'text', '#ps': 'position' },
    });
    for (const c of chunks)
      entries.push({ id: c.chunkId, text: c.text, documentId: c.documentId, position: Number(c.position) });
  }
  return entries;
}
