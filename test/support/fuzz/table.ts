import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { keyId, keyOf, type Item } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';

export type Snapshot = Map<string, string>;

/**
 * Audit actions that record a refusal (401/403 after the request was understood). They are the
 * one kind of write a refused request is meant to leave behind, so the "writes nothing" check
 * ignores them (and only them) among the audit entries.
 */
const REFUSAL_AUDIT_ACTIONS = new Set([
  'access.denied',
  'login.failed',
  'login.unverified',
  'password.reset.failed',
  'password.change.failed',
  'logout.failed',
  'token.reuse',
]);

/**
 * What the before/after comparison leaves out, and why. Everything else must be byte-identical
 * after a rejected request.
 */
export const IGNORED_WRITES: { rule: string; why: string; test: (item: Item) => boolean }[] = [
  {
    rule: 'pk RATE#…',
    why: 'rate-limit counters: counted before validation on purpose (a flood of bad requests must still be limited); TTL-expired',
    test: (item) => String(item.pk).startsWith('RATE#'),
  },
  {
    rule: 'pk OTP#…',
    why: 'one-time codes (e-mail verification, reset, OAuth state): a wrong code bumps the attempt counter on purpose (brute-force lockout); TTL-expired',
    test: (item) => String(item.pk).startsWith('OTP#'),
  },
  {
    rule: 'pk LOCALPAY#…',
    why: "the local payment providers' own records (checkout sessions, their webhook log): an external system's state, which a refused request may touch before the API refuses",
    test: (item) => String(item.pk).startsWith('LOCALPAY#'),
  },
  {
    rule: `audit entries with action ${[...REFUSAL_AUDIT_ACTIONS].join(', ')}`,
    why: 'the audit trail of refusals (vault access.denied, failed sign-in/reset/logout): a refusal is meant to be recorded',
    test: (item) => item.pk === 'PLATFORM#AUDIT' && REFUSAL_AUDIT_ACTIONS.has(String(item.action)),
  },
  {
    rule: 'PLATFORM#AUDIT / #COUNT',
    why: 'the audit collection counter, bumped with those refusal entries (any other new audit entry is still caught)',
    test: (item) => item.pk === 'PLATFORM#AUDIT' && item.sk === '#COUNT',
  },
];

export const isIgnored = (item: Item) => IGNORED_WRITES.some((r) => r.test(item));

/** Every item of the test table (paginated Scan, consistent). Test-side only: the API never scans. */
export async function scanTable(): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(
      new ScanCommand({ TableName: config.tableName, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...((out.Items ?? []) as Item[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export async function snapshot(filter: (item: Item) => boolean = (i) => !isIgnored(i)): Promise<Snapshot> {
  const snap: Snapshot = new Map();
  for (const item of await scanTable()) if (filter(item)) snap.set(keyId(keyOf(item)), JSON.stringify(item));
  return snap;
}

export interface TableDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export function diff(before: Snapshot, after: Snapshot): TableDiff {
  const added = [...after.keys()].filter((k) => !before.has(k));
  const removed = [...before.keys()].filter((k) => !after.has(k));
  const changed = [...after.keys()].filter((k) => before.has(k) && before.get(k) !== after.get(k));
  return { added, removed, changed };
}
