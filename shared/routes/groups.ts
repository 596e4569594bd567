/**
 * Endpoint groups: each is one Lambda function behind the HTTP API, plus the queue workers.
 * What each may touch is declared here so the stack grants exactly that and nothing more.
 */
import type { InvokedFunction } from '#shared/platform/ports.ts';

export type QueueName = 'email' | 'webhooks' | 'jobs' | 'channels' | 'indexing' | 'turns' | 'deliveries' | 'usage';

export interface GroupSpec {
  description: string;
  table: 'none' | 'read' | 'readwrite';
  /** Queues the function sends to. */
  sends?: readonly QueueName[];
  /**
   * The media bucket; `knowledge-read`: only its `knowledge/` prefix, read (the keyword indexes retrieval
   * loads); `browser-shots`: only its `browser-shots/` prefix, written and presigned (Browser Action).
   */
  media?: 'read' | 'readwrite' | 'knowledge-read' | 'browser-shots';
  invoices?: 'read' | 'readwrite';
  /** Reads the private signing key (only the group that issues tokens). */
  signsTokens?: boolean;
  /** Reads and writes SecureString parameters under the vault path. */
  vault?: boolean;
  /**
   * Reads, writes and deletes tenant secrets (`/<app>/<stage>/tenants/...`, areas/vault/tenant-secrets.ts);
   * `'read'`: only resolves them (GetParameter and kms:Decrypt), for the functions that use a secret.
   */
  tenantSecrets?: boolean | 'read';
  /** Reads the internal API key parameter. */
  internalKey?: boolean;
  /** Reads provider secrets (OAuth client secrets, webhook signing secrets). */
  providerSecrets?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
  /** Knowledge vectors (the S3 Vectors bucket; areas/knowledge/vectors/): query, or also write. */
  knowledgeVectors?: 'read' | 'readwrite';
  /**
   * Calls models through the gateway in-process: Amazon Bedrock (bedrock:InvokeModel*, scoped to the
   * catalog's model ARNs); such a group also sends to `usage`, where its calls' records go.
   */
  bedrock?: boolean;
  /** Reads vault secrets by name, never writes (an OpenAI-compatible endpoint's API key). */
  readsVault?: boolean;
  /**
   * Its streaming front door answers any origin: the widget runs on tenants' sites, its routes carry
   * no cookies, and the handler checks the widget's own allowed origins.
   */
  anyOrigin?: boolean;
  /** Functions it invokes and waits for (Lambda Invoke, RequestResponse); each one's name in its environment. */
  invokes?: readonly InvokedFunction[];
}

/**
 * What a function that runs agent turns needs (the playground, widget messages, channel turns): the
 * model through the gateway in-process (Bedrock, a vault-held API key), retrieval, its tools' secrets,
 * e-mail and channel sends, and time for five model steps.
 */
const AGENT_TURN = {
  sends: ['channels', 'email', 'deliveries', 'usage'],
  tenantSecrets: 'read',
  knowledgeVectors: 'read',
  // Retrieval loads the bases' keyword indexes from the media bucket's knowledge/ prefix.
  media: 'knowledge-read',
  bedrock: true,
  readsVault: true,
  invokes: ['browser-action'],
  memoryMb: 1024,
  timeoutSeconds: 120,
} as const satisfies Partial<GroupSpec>;

export const API_GROUPS = {
  system: { description: 'Health, API reference and JWKS', table: 'none' },
  fallback: { description: 'Answers unknown routes and methods in the envelope', table: 'none' },
  auth: {
    description: 'Sign-in and account',
    table: 'readwrite',
    sends: ['email'],
    signsTokens: true,
    providerSecrets: true,
    memoryMb: 1024,
  },
  users: { description: 'Users', table: 'readwrite', sends: ['email'] },
  tenants: { description: 'Tenants and invitations', table: 'readwrite', sends: ['email'] },
  org: { description: 'Roles, departments and groups', table: 'readwrite' },
  catalog: { description: 'Suppliers and product-services', table: 'readwrite' },
  onboarding: { description: 'Tenant onboarding', table: 'readwrite', sends: ['email'] },
  admin: { description: 'Audit logs and integration events', table: 'read' },
  bcm: { description: 'Business continuity', table: 'readwrite' },
  billing: {
    description: 'Subscriptions, payments, invoices',
    table: 'readwrite',
    invoices: 'readwrite',
    providerSecrets: true,
  },
  webhooks: { description: 'Payment provider webhooks', table: 'none', sends: ['webhooks'], providerSecrets: true },
  // A version sent to review queues its evaluation on `turns` (the worker with the runtime's grants).
  prompts: { description: 'AI prompts', table: 'readwrite', sends: ['turns'] },
  tools: { description: 'AI tool registry', table: 'readwrite', tenantSecrets: true },
  analytics: { description: 'AI analytics and usage ingestion', table: 'readwrite', internalKey: true },
  // A site's published content changed: the knowledge sources reading it sync on the indexing queue.
  'content-admin': {
    description: 'Content administration',
    table: 'readwrite',
    media: 'readwrite',
    sends: ['indexing'],
  },
  'content-public': { description: 'Public content', table: 'readwrite', media: 'read' },
  vault: { description: 'Secrets vault', table: 'readwrite', vault: true, internalKey: true, sends: ['jobs'] },
  // AI knowledge: routes (originals under the media bucket's knowledge/ prefix) and the indexing queue.
  knowledge: {
    description: 'AI knowledge bases, documents and retrieval',
    table: 'readwrite',
    media: 'readwrite',
    // A document found stuck on a read ends Failed, which tells webhook subscribers (document.failed).
    sends: ['indexing', 'deliveries', 'usage'],
    knowledgeVectors: 'read',
    // Retrieval embeds the query through the gateway in-process: the base's embedding model.
    bedrock: true,
    readsVault: true,
  },
  'llm-gateway': {
    description: 'AI LLM gateway: OpenAI-compatible model calls, keys, usage, model catalog',
    table: 'readwrite',
    sends: ['usage'],
    bedrock: true,
    readsVault: true,
    memoryMb: 1024,
  },
  // AI agent runtime: the playground turn; its tools send e-mail and channel
  // messages, resolve tenant secrets (database connections) and reach the network.
  'agent-runtime': {
    description: 'AI agent runtime: one turn of an agent, its tools run',
    table: 'readwrite',
    ...AGENT_TURN,
  },
  // AI agents: agents, versions, widgets, channel connections (credentials as tenant secrets), entitlements.
  agents: {
    description: 'AI agents, widgets, channel connections and entitlements',
    table: 'readwrite',
    tenantSecrets: true,
  },
  // AI conversations: widget sessions (streamed answers through its front door, open to any origin the
  // widget allows) and the staff inbox. A visitor's message runs an agent turn here, so it has the
  // agent runtime's grants; a person's reply to a channel conversation goes out on the channels queue.
  conversations: {
    description: 'AI conversations: widget sessions, agent turns, the staff inbox',
    table: 'readwrite',
    ...AGENT_TURN,
    anyOrigin: true,
  },
  // AI connector: the chat platforms' webhooks (each verified with the connection's own
  // secret, resolved read-only from the tenant's namespace; the turn is queued, so the webhook answers
  // within Slack's 3 s) and proactive messages (sent by the channel worker).
  connector: {
    description: 'AI connector: chat-platform webhooks and proactive messages',
    table: 'readwrite',
    sends: ['turns', 'channels'],
    tenantSecrets: 'read',
  },
  // Manage Schedule's calendars: settings, free slots, appointments and the public iCalendar feed. Bookings
  // (and their invitation e-mails) come from the tool, in the functions that run agent turns.
  calendars: {
    description: 'AI calendars: opening hours, free slots, appointments, subscription feeds',
    table: 'readwrite',
  },
  // Outbound webhooks: subscriptions and their delivery logs; the test route queues a delivery.
  'webhook-subscriptions': {
    description: 'Outbound webhook subscriptions, secrets and delivery logs',
    table: 'readwrite',
    sends: ['deliveries'],
  },
  /** Pages standing in for external identity and payment providers; only the local server has them. */
  'local-providers': { description: 'Local stand-ins for external providers (never deployed)', table: 'readwrite' },
} as const satisfies Record<string, GroupSpec>;

export type GroupName = keyof typeof API_GROUPS;

/** Queue consumers; each queue has a dead-letter queue. */
export const WORKERS = {
  'email-worker': { description: 'Sends queued e-mail through SES', queue: 'email', table: 'readwrite', ses: true },
  'webhook-worker': {
    description: 'Applies provider webhook events',
    queue: 'webhooks',
    table: 'readwrite',
    invoices: 'readwrite',
  },
  'jobs-worker': {
    description: 'Background jobs (vault sync, invoices)',
    queue: 'jobs',
    table: 'readwrite',
    vault: true,
    invoices: 'readwrite',
  },
  'channel-worker': {
    description: 'Sends queued chat-channel messages through Slack, Teams, WhatsApp, Telegram and Discord',
    queue: 'channels',
    table: 'readwrite',
    tenantSecrets: 'read',
  },
  'knowledge-worker': {
    description: 'Parses, chunks, embeds and indexes knowledge documents; removes deleted ones',
    queue: 'indexing',
    table: 'readwrite',
    // document.indexed and document.failed go to webhook subscribers; embedding calls' records to usage.
    sends: ['deliveries', 'usage'],
    media: 'readwrite',
    knowledgeVectors: 'readwrite',
    // Chunks are embedded through the gateway in-process: the base's embedding model (Bedrock, or an
    // OpenAI-compatible endpoint whose key is a vault secret).
    bedrock: true,
    readsVault: true,
    memoryMb: 1024,
    // A 10 MB PDF parsed, chunked and embedded in one run, or a delivery of small documents indexed
    // together; the queue's visibility (360 s) stays above it.
    timeoutSeconds: 300,
    // Documents of one delivery are indexed together (their keyword postings shared, in fewer
    // writes): up to 500 a delivery (a full keyword segment), gathered for up to 1 s (SQS requires a
    // window above 10).
    batchSize: 500,
    batchingWindowSeconds: 1,
  },
  // AI connector: a channel message's agent turn (the agent runtime's grants: models,
  // knowledge, the tools' secrets and their e-mail and channel sends); its answer goes out on `channels`.
  'channel-turn-worker': {
    description: 'Runs agent turns off the request path: chat-channel messages (answers queued) and prompt evaluations',
    queue: 'turns',
    table: 'readwrite',
    ...AGENT_TURN,
  },
  // The model calls' records (the gateway's usage per day, model, key and lease, and the analytics
  // record), ingested in batches: one transaction for up to a hundred calls, each counted once by its
  // request id (its marker), so a message needs no claim of its own. A short visibility timeout
  // bounds how late a retried record lands (the gateway's lease expiry waits for it).
  'usage-worker': {
    description: "Ingests model calls' records in batches (usage per day, model, key and lease; analytics)",
    queue: 'usage',
    table: 'readwrite',
    timeoutSeconds: 20,
    visibilitySeconds: 60,
    batchSize: 100,
    batchingWindowSeconds: 1,
  },
  // Outbound webhooks: signs and sends each delivery to the subscriber's checked address, queues its retries.
  'delivery-worker': {
    description: 'Sends signed outbound webhook deliveries and queues their retries with back-off',
    queue: 'deliveries',
    table: 'readwrite',
    sends: ['deliveries'],
  },
} as const satisfies Record<
  string,
  Omit<GroupSpec, 'sends'> & {
    queue: QueueName;
    ses?: boolean;
    sends?: readonly QueueName[];
    /** Records per delivery (default 5, shared/queue/batching.ts); above 10 needs a batching window. */
    batchSize?: number;
    /** Seconds the event source gathers records before a delivery that is not full. */
    batchingWindowSeconds?: number;
    /** The queue's visibility timeout (a failed message's wait before its retry) when not six times the default worker timeout. */
    visibilitySeconds?: number;
  }
>;

export type WorkerName = keyof typeof WORKERS;

/**
 * Functions run on a schedule (EventBridge): the AI runtime's minute (functions/ai-scheduler/index.ts:
 * reservations of dead model calls, documents stuck past their deadline, idle conversations).
 */
export const SCHEDULED = {
  'ai-scheduler': {
    description:
      'Every minute: releases dead reservations, fails stuck documents and source syncs, starts scheduled source syncs, closes idle conversations, queues due proactive messages, expires held tool calls (their turns resume)',
    table: 'readwrite',
    // An expired call resumes its agent turn here: the turn's grants (the model, retrieval, the channel's queue).
    ...AGENT_TURN,
    // A knowledge source's scheduled sync starts here and runs on the indexing queue.
    sends: [...AGENT_TURN.sends, 'indexing'],
    everyMinutes: 1,
    timeoutSeconds: 55,
  },
} as const satisfies Record<string, GroupSpec & { everyMinutes: number }>;

/**
 * Functions the runtime invokes and waits for, no route and no queue: the Browser Action tool's
 * headless Chromium (areas/tools/browser/), kept out of every agent-turn bundle. Chromium wants
 * memory (1,769 MB is one full vCPU on Lambda); its timeout covers the tool's 25 s at most plus
 * unpacking Chromium on a cold start.
 */
export const INVOKED = {
  'browser-action': {
    description: 'Browser Action tool: headless Chromium runs one call of navigate, click, fill, read steps',
    table: 'none',
    media: 'browser-shots',
    memoryMb: 2048,
    timeoutSeconds: 45,
  },
} as const satisfies Record<InvokedFunction, GroupSpec>;
