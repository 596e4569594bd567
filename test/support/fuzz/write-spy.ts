import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ddb } from '#shared/platform/aws.ts';
import { isIgnored } from './table.ts';
import type { Item } from '#shared/data/keys.ts';

export interface RecordedWrite {
  command: string;
  key: string;
  /** The written item (Put) or just its key (Update, Delete). */
  item: Item;
}

type Send = DynamoDBDocumentClient['send'];

const keyString = (k: Item) => `${String(k.pk)}|${String(k.sk)}`;

/** What `touched` reads of the write commands' inputs; which fields are present depends on the command. */
interface WriteInput {
  Item?: Item;
  Key?: Item;
  TransactItems?: { Put?: { Item: Item }; Update?: { Key: Item }; Delete?: { Key: Item } }[];
  RequestItems?: Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>;
}
interface SentCommand {
  constructor: { name: string };
  input: WriteInput;
}

/** The items a successful write command touched. */
function touched(command: SentCommand): RecordedWrite[] {
  const name = command.constructor.name;
  const input = command.input;
  const out: RecordedWrite[] = [];
  const put = (item: Item) => out.push({ command: name, key: keyString(item), item });
  const key = (k: Item) => out.push({ command: name, key: keyString(k), item: k });
  switch (name) {
    case 'PutCommand':
      put(input.Item!);
      break;
    case 'UpdateCommand':
    case 'DeleteCommand':
      key(input.Key!);
      break;
    case 'TransactWriteCommand':
      for (const t of input.TransactItems ?? []) {
        if (t.Put) put(t.Put.Item);
        if (t.Update) key(t.Update.Key);
        if (t.Delete) key(t.Delete.Key);
      }
      break;
    case 'BatchWriteCommand':
      for (const requests of Object.values(input.RequestItems ?? {})) {
        for (const r of requests) {
          if (r.PutRequest) put(r.PutRequest.Item);
          if (r.DeleteRequest) key(r.DeleteRequest.Key);
        }
      }
      break;
  }
  return out;
}

/**
 * Records every write the API's DynamoDB client completes (test-side spy on `send`), so each
 * request's writes are known exactly without scanning the table after every request.
 */
export function spyOnWrites() {
  const client = ddb();
  const original = client.send.bind(client) as unknown as (
    command: SentCommand,
    ...rest: unknown[]
  ) => Promise<unknown>;
  let current: RecordedWrite[] = [];
  client.send = (async (command: SentCommand, ...rest: unknown[]) => {
    const result = await original(command, ...rest);
    current.push(...touched(command));
    return result;
  }) as Send;
  return {
    /** Writes since the last call, and a fresh record. */
    take(): RecordedWrite[] {
      const taken = current;
      current = [];
      return taken;
    },
    /** Writes that count (the ignore list of table.ts applies to them too). */
    meaningful: (writes: RecordedWrite[]) => writes.filter((w) => !isIgnored(w.item)),
    restore() {
      client.send = original;
    },
  };
}
