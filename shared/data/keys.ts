/**
 * Every DynamoDB key shape lives here. Tenant-owned partitions begin with the tenant id, so a
 * key built for one tenant can never address another tenant's items.
 *
 * Table: pk/sk. gsi1 (gsi1pk/gsi1sk): collections ordered newest first. gsi2 (gsi2pk/gsi2sk):
 * secondary lookups (user by e-mail owner, site by domain, child lists). byId (`id`, keys only): the
 * partition of a record known only by its id. `ttl`: expiry epoch seconds.
 */
export interface Key {
  pk: string;
  sk: string;
}

export const PLATFORM = 'PLATFORM';
export const COUNTER_SK = '#COUNT';
const ITEM_SK = 'ITEM';

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
  | 'CONVERSATION';

/** Platform-wide collections (SystemAdmin scope or global reference data). */
export type PlatformCollection = 'TENANT' | 'AUDIT' | 'INTEGRATION_EVENT' | 'PLAN' | 'BUILTIN_TOOL' | 'SITE' | 'USER';

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
  /** Refresh tokens are addressed by the hash of their value; families group rotations. */
  refreshToken: (tokenHash: string): Key => ({ pk: `RT#${tokenHash}`, sk: ITEM_SK }),
  tokenFamily: (familyId: string): Key => ({ pk: `RTF#${familyId}`, sk: ITEM_SK }),
  userTokenFamilies: (userId: string) => `USER#${userId}#RTF`,
  /** Short-lived one-time secrets: e-mail codes, reset tokens, OAuth state. */
  oneTime: (kind: 'VERIFY' | 'RESET' | 'OAUTH_STATE' | 'RESEND' | 'DEVICE' | 'PREVIEW', subject: string): Key => ({
    pk: `OTP#${kind}#${subject}`,
    sk: ITEM_SK,
  }),
  /** External identity link: provider subject -> user. */
  identityLink: (provider: string, subject: string): Key => ({ pk: `IDP#${provider}#${subject}`, sk: ITEM_SK }),
  /** Webhook idempotency: one item per provider event id. */
  webhookEvent: (provider: string, eventId: string): Key => ({ pk: `WH#${provider}#${eventId}`, sk: ITEM_SK }),
  /** gsi2 partition of every tenant's subscriptions (administrator billing list), newest first. */
  allSubscriptions: () => `${platformCollection('PLAN')}#SUBSCRIPTIONS`,
  /** Local payment provider stand-in: checkout sessions, charges and its log of sent webhooks. */
  localPayment: (kind: 'SESSION' | 'SUBSCRIPTION', id: string): Key => ({ pk: `LOCALPAY#${kind}#${id}`, sk: ITEM_SK }),
  localWebhookLog: () => 'LOCALPAY#WEBHOOKS',
  /** A user's membership of a group (memberCount counts these); gsi2 lists a user's groups. */
  groupMember: (tenantId: string, groupId: string, userId: string): Key => ({
    pk: `${tenantId}#GROUP#${groupId}#MEMBER`,
    sk: userId,
  }),
  userGroups: (tenantId: string, userId: string) => `${tenantId}#USER#${userId}#GROUPS`,
  /** gsi2 partition of a department's direct children (`ROOT` for top-level departments). */
  departmentChildren: (tenantId: string, parentId: string | null) =>
    `${tenantId}#DEPARTMENT#PARENT#${parentId ?? 'ROOT'}`,
  /** Invitation lookup by the SHA-256 of its code (the code itself is never stored). */
  invitationCode: (codeHash: string): Key => ({ pk: `${PLATFORM}#UNIQUE#INVITATION_CODE#${codeHash}`, sk: ITEM_SK }),
  /**
   * Content: a site is a platform item (SITE) with its tenant as an attribute (only SystemAdmin
   * administers content; public reads address sites by id). Pages, posts, their translations and
   * menus share the site's own partition; form submissions and media are items of their own
   * (one GetItem by id) listed through per-site gsi1 collections.
   */
  siteContent: (siteId: string) => `${PLATFORM}#SITE#${siteId}`,
  siteList: (siteId: string, kind: 'POSTS' | 'FORMS' | 'MEDIA') => `${PLATFORM}#SITE#${siteId}#${kind}`,
  /** gsi2 partition of a site's published posts, ordered by publishedAt. */
  sitePublishedPosts: (siteId: string) => `${PLATFORM}#SITE#${siteId}#PUBLISHED`,
  contentRecord: (kind: 'FORM' | 'MEDIA', id: string): Key => ({ pk: `${PLATFORM}#${kind}#${id}`, sk: ITEM_SK }),
  /** Where a collection's soft-deleted records are kept out of the list (deleted tools). */
  archived: (collectionPk: string) => `${collectionPk}#ARCHIVED`,
  /** gsi2 partition listing a collection with its archived records too (prompts with includeArchived). */
  withArchived: (collectionPk: string) => `${collectionPk}#ALL`,
  /** Local stand-in identity provider (never deployed): an issued authorization code, by its SHA-256. */
  localIdpCode: (idp: string, codeHash: string): Key => ({ pk: `LOCALIDP#${idp}#CODE#${codeHash}`, sk: ITEM_SK }),
};
