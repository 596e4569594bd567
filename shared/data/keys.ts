import { createHash } from 'node:crypto';

/**
 * The key primitives and the shapes several areas share; each area builds its own shapes on these
 * in its `records.ts` (a unit test refuses key literals anywhere else). Tenant-owned partitions
 * begin with the tenant id, so a key built for one tenant can never address another tenant's items.
 *
 * Table: pk/sk. gsi1 (gsi1pk/gsi1sk): collections ordered newest first. gsi2 (gsi2pk/gsi2sk):
 * secondary lookups (user by e-mail owner, site by domain, child lists). byId (`id`, keys only): the
 * partition of a record known only by its id. `ttl`: expiry epoch seconds.
 */
export interface Key {
  pk: string;
  sk: string;
}

/** A stored item as read or written: its key and whatever else it holds. */
export type Item = Record<string, unknown>;

/** A stored item's table key alone, without its other attributes (to delete it, or read it again). */
export const keyOf = (item: { pk?: unknown; sk?: unknown }): Key => ({ pk: String(item.pk), sk: String(item.sk) });

/** A key as one string, for maps and sets of keys. */
export const keyId = (key: Key) => `${key.pk}|${key.sk}`;

export const PLATFORM = 'PLATFORM';
export const COUNTER_SK = '#COUNT';
const ITEM_SK = 'ITEM';

/** What an outside id may hold and still go into a key as it is: the characters platforms' ids use. */
const PLAIN_ID = /^[A-Za-z0-9._:@+=/-]{1,200}$/;

/**
 * An id from outside (a chat platform's event or user id) as a key part: itself when short and
 * plain, so keys stay readable, else `sha256~` and its SHA-256 in hex. A sort key holds at most
 * 1,024 bytes and a partition key 2,048: a raw id of a thousand characters (or of emoji, four bytes
 * each) failed the write. `~` is outside the plain set, so no raw id can equal another's digest.
 */
export const outsideIdKeyPart = (id: string): string =>
  PLAIN_ID.test(id) ? id : `sha256~${createHash('sha256').update(id, 'utf8').digest('hex')}`;

/** Tenant-scoped collections; the partition of each is `{tenantId}#{COLLECTION}`. */
export type TenantCollection =
  | 'SUPPLIER'
  | 'PRODUCT'
  | 'USER'
  | 'ROLE'
  | 'DEPARTMENT'
  | 'GROUP'
  | 'INVITATION'
  | 'BIA'
  | 'RISK'
  | 'BCM_CONFIG'
  | 'PROMPT'
  | 'TOOL'
  | 'AGENT'
  | 'SUBSCRIPTION'
  | 'PAYMENT'
  | 'PAYMENT_METHOD'
  | 'INVOICE'
  | 'BILLING'
  | 'LLM_USAGE'
  | 'SUPPORT_USAGE'
  | 'USAGE_EVENT'
  // The AI runtime (docs/architecture.md, "The AI runtime"): gateway keys and the month's token allowance, knowledge
  // bases, agents' widgets and channel connections, conversations, proactive messages.
  | 'GATEWAY_KEY'
  | 'LLM_ALLOWANCE'
  | 'LLM_RESPONSE'
  | 'KB'
  | 'WIDGET'
  | 'CHANNEL'
  | 'CONVERSATION'
  | 'PROACTIVE_MESSAGE'
  | 'CONVERSATION_SETTINGS'
  // Manage Schedule: tenant calendars; their appointments and slot claims are child partitions.
  | 'CALENDAR'
  // What anonymous visitors and channel users spent per day, against the caps their tenant set.
  | 'VISITOR_SPEND'
  // Outbound webhooks: a tenant's subscriptions, each with its delivery log below it.
  | 'WEBHOOK_SUBSCRIPTION'
  // Knowledge served over MCP: the endpoints minted for a base, each with its gateway key.
  | 'KB_MCP';

/** Platform-wide collections (SystemAdmin scope or global reference data). */
export type PlatformCollection =
  | 'TENANT'
  | 'AUDIT'
  | 'INTEGRATION_EVENT'
  | 'PLAN'
  | 'BUILTIN_TOOL'
  | 'SITE'
  | 'USER'
  // The gateway's model catalog.
  | 'LLM_MODEL';

const collection = (tenantId: string, name: TenantCollection) => `${tenantId}#${name}`;
const platformCollection = (name: PlatformCollection) => `${PLATFORM}#${name}`;

export const keys = {
  /** One tenant-owned record: GET by id is a single GetItem. */
  tenantItem: (tenantId: string, name: TenantCollection, id: string): Key => ({
    pk: collection(tenantId, name),
    sk: id,
  }),
  /** Child record under a parent (BIA entries, risk assessments, prompt versions). */
  childItem: (tenantId: string, parent: TenantCollection, parentId: string, child: string, id: string): Key => ({
    pk: `${tenantId}#${parent}#${parentId}#${child}`,
    sk: id,
  }),
  childCollection: (tenantId: string, parent: TenantCollection, parentId: string, child: string) =>
    `${tenantId}#${parent}#${parentId}#${child}`,
  tenantCollection: collection,
  /** The tenant whose `name` collection holds a partition key, or null when it is not one. */
  tenantOfItem: (pk: string, name: TenantCollection): string | null => {
    const suffix = `#${name}`;
    if (!pk.endsWith(suffix)) return null;
    const tenantId = pk.slice(0, -suffix.length);
    return tenantId && tenantId !== PLATFORM && !tenantId.includes('#') ? tenantId : null;
  },
  platformItem: (name: PlatformCollection, id: string): Key => ({ pk: platformCollection(name), sk: id }),
  platformCollection,
  /** Maintained count of a collection, so an unfiltered list's totalCount is one GetItem. */
  counter: (collectionPk: string): Key => ({ pk: collectionPk, sk: COUNTER_SK }),
  /** Sort key of the newest-first index: ISO time sorts lexically; the id breaks ties. */
  newestFirst: (collectionPk: string, createdAt: string, id: string) => ({
    gsi1pk: collectionPk,
    gsi1sk: `${createdAt}#${id}`,
  }),
  /** Guards a value that must be unique (platform-wide or within a tenant scope). */
  unique: (kind: 'EMAIL' | 'SLUG' | 'DOMAIN' | string, value: string, scope = PLATFORM): Key => ({
    pk: `${scope}#UNIQUE#${kind}#${value}`,
    sk: ITEM_SK,
  }),
  /** A user: tenant users live in their tenant's partition; users without a tenant (platform admins, self-registered accounts) in the platform's. */
  user: (tenantId: string | null, userId: string): Key =>
    tenantId ? { pk: collection(tenantId, 'USER'), sk: userId } : { pk: platformCollection('USER'), sk: userId },
  userCollection: (tenantId: string | null) => (tenantId ? collection(tenantId, 'USER') : platformCollection('USER')),
  /** Fixed-window rate-limit counter; expires by TTL. */
  rateLimit: (name: string, subject: string, windowStart: number): Key => ({
    pk: `RATE#${name}#${subject}`,
    sk: String(windowStart),
  }),
  /** A queue message's once-only claim (shared/queue/worker.ts); expires by TTL. */
  messageClaim: (queue: string, messageId: string): Key => ({ pk: `DONE#${queue}#${messageId}`, sk: ITEM_SK }),
  /** Where a collection's soft-deleted records are kept out of the list (deleted tools). */
  archived: (collectionPk: string) => `${collectionPk}#ARCHIVED`,
  /** gsi2 partition listing a collection with its archived records too (prompts with includeArchived). */
  withArchived: (collectionPk: string) => `${collectionPk}#ALL`,
};
