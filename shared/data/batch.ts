import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { Item } from './keys.ts';

type WriteRequest = { DeleteRequest: { Key: { pk: string; sk: string } } } | { PutRequest: { Item: Item } };

/** BatchWriteItem in chunks of 25, unprocessed items retried: for cascades and copies too large for a transaction. */
async function batchWrite(all: WriteRequest[]) {
  const chunks: WriteRequest[][] = [];
  for (let i = 0; i < all.length; i += 25) chunks.push(all.slice(i, i + 25));
  await Promise.all(
    chunks.map(async (chunk) => {
      let requests = chunk;
      for (let attempt = 0; requests.length && attempt < 8; attempt++) {
        if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
        const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [config.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[config.tableName] ?? []) as WriteRequest[];
      }
      if (requests.length) throw new Error('Batch write left unprocessed items');
    }),
  );
}

export const deleteAll = (keyList: { pk: string; sk: string }[]) =>
  batchWrite(keyList.map((Key) => ({ DeleteRequest: { Key } })));
export const putAll = (items: Item[]) => batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
