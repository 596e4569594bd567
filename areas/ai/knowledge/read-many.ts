import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Key } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

/** Items by key through BatchGetItem (100 keys a request, unprocessed keys retried); a map by `pk|sk`. */
export async function getMany<T>(keyList: Key[]): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const unique = [...new Map(keyList.map((k) => [`${k.pk}|${k.sk}`, k])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Key[] = unique.slice(i, i + 100);
    for (let attempt = 0; pending.length && attempt < 8; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
      const res = await ddb().send(new BatchGetCommand({ RequestItems: { [config.tableName]: { Keys: pending } } }));
      for (const item of res.Responses?.[config.tableName] ?? []) out.set(`${item.pk}|${item.sk}`, item as T);
      pending = (res.UnprocessedKeys?.[config.tableName]?.Keys ?? []) as Key[];
    }
    if (pending.length) throw new Error('Batch read left unprocessed keys');
  }
  return out;
}

export const keyOf = (k: Key) => `${k.pk}|${k.sk}`;
