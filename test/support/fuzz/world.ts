import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLANS } from '#areas/billing/plan-catalog.ts';
import { startBillingStandIns } from '#test/support/billing.ts';
import { startKnowledgeStandIns } from '#test/support/knowledge.ts';
import { hashPassword } from '#areas/identity/password.ts';
import { keys } from '#shared/data/keys.ts';
import { commitChange } from '#shared/data/commit.ts';
import { systemRoleItems } from '#areas/identity/system-roles.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { deliveryItem } from '#areas/outbound-webhooks/records.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { invoke, type InvokeOptions, type InvokeResult } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { routeById } from './route-matrix.ts';
import { userRecord } from '#test/support/fixtures.ts';
import { publishedWidget, session } from '#test/support/conversations.ts';

export const INTERNAL_KEY = process.env.INTERNAL_API_KEY ?? 'test-internal-key';
export const PASSWORD = 'Correct-Horse-9';

let ipCounter = 0;
/** A fresh source address per request, so per-IP rate limits never mask what is tested. */
export const nextIp = () => {
  ipCounter++;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

const unique = () => crypto.randomUUID().slice(0, 8);

export interface Tenant {
  id: string;
  slug: string;
  ownerUserId: string;
  owner: string;
  member: string;
  /** Created through the API (tenants.create) or seeded directly when that route does not exist. */
  via: 'api' | 'seed';
  /** A widget session token of one of its conversations (the widget routes' credential). */
  widgetSession: string;
}

export interface World {
  admin: string;
  /** A signed-in account with no tenant and no roles (a fresh registration). */
  loner: string;
  a: Tenant;
  b: Tenant;
}

let hash: Promise<string> | undefined;
const passwordHash = () => (hash ??= hashPassword(PASSWORD));

/** A user record in a tenant (there is no user-create route: users join by invitation). */
export async function seedUser(tenantId: string | null, roles: string[], email = `user-${unique()}@example.com`) {
  const id = crypto.randomUUID();
  await createUser(
    userRecord({
      id,
      email,
      firstName: 'Fuzz',
      lastName: 'User',
      roles,
      tenantId,
      isEmailVerified: true,
      passwordHash: await passwordHash(),
    }),
    null,
  );
  return { id, email };
}

export async function createTenant(admin: string, tag: string): Promise<Tenant> {
  const slug = `${tag}-${unique()}`;
  let id: string;
  let via: Tenant['via'] = 'api';
  if (routeById('tenants.create')) {
    const res = await invoke('POST', '/api/tenants', {
      token: admin,
      body: {
        slug,
        name: `Tenant ${tag}`,
        email: `owner-${slug}@example.com`,
        planType: 2,
        maxAgents: 10,
        maxKnowledgeBases: 5,
        maxSeats: 50,
      },
    });
    if (res.status !== 201) throw new Error(`tenants.create answered ${res.status}: ${res.text}`);
    id = res.json.result.id;
  } else {
    via = 'seed';
    id = crypto.randomUUID();
    await ddb().send(
      new PutCommand({
        TableName: config.tableName,
        Item: { ...keys.platformItem('TENANT', id), id, slug, status: 1, name: `Tenant ${tag}` },
      }),
    );
    await commitChange(systemRoleItems(id, new Date().toISOString()), null);
  }
  const owner = await seedUser(id, ['TenantOwner']);
  const member = await seedUser(id, ['TenantMember']);
  return {
    id,
    slug,
    via,
    ownerUserId: owner.id,
    owner: await tokenFor({ tenantId: id, userId: owner.id, email: owner.email, role: 'TenantOwner' }),
    member: await tokenFor({ tenantId: id, userId: member.id, email: member.email, role: 'TenantMember' }),
    widgetSession: '',
  };
}

export async function createWorld(): Promise<World> {
  const adminUser = await seedUser(null, ['SystemAdmin']);
  const admin = await tokenFor({ role: 'SystemAdmin', userId: adminUser.id, email: adminUser.email });
  const lonerUser = await seedUser(null, []);
  const loner = await tokenFor({
    tenantId: null,
    userId: lonerUser.id,
    email: lonerUser.email,
    roles: [],
    permissions: [],
  });
  const a = await createTenant(admin, 'alpha');
  const b = await createTenant(admin, 'bravo');
  for (const t of [a, b]) t.widgetSession = (await conversationOf(t)).token;
  return { admin, loner, a, b };
}

/** The most a legitimate caller can have on a route: what the fuzzer sends so input reaches validation. */
export function credentialsFor(
  route: RouteDef,
  world: World,
  tenant: Tenant = world.a,
): Pick<InvokeOptions, 'token' | 'headers'> {
  const auth = route.auth;
  if (auth.kind === 'none' || auth.kind === 'signature') return {};
  // The gateway's /v1 routes take a user's token as well as a gateway key: the owner's reaches validation.
  if (auth.kind === 'gatewayKey') return { token: tenant.owner };
  if (auth.kind === 'widgetSession') return { headers: { 'x-widget-session': tenant.widgetSession } };
  const adminOnly =
    !!auth.roles?.length &&
    auth.roles.every((r) => r === 'SystemAdmin') &&
    !(auth.kind === 'bearer' && auth.permission);
  const token = adminOnly ? world.admin : tenant.owner;
  if (auth.kind === 'internalKey')
    return { headers: { 'x-internal-api-key': INTERNAL_KEY }, ...(auth.roles ? { token } : {}) };
  return { token };
}

/**
 * Creators of records a path parameter can name, keyed by the parameter's name. Each goes through
 * the API's own create route when the table has one; `null` with the reason otherwise.
 */
export interface RecordCreator {
  /** Route that creates it, or why there is none. */
  via: string;
  create(world: World, tenant: Tenant): Promise<string>;
}

const viaApi = (
  routeId: string,
  body: (tenant: Tenant) => Record<string, unknown>,
  pick = (r: InvokeResult) => r.json?.result?.id as string,
) =>
  ({
    via: routeId,
    async create(_world: World, tenant: Tenant) {
      const route = routeById(routeId);
      if (!route) throw new Error(`route ${routeId} is not in the table`);
      const res = await invoke(route.method, route.path, { token: tenant.owner, body: body(tenant), ip: nextIp() });
      if (res.status >= 300) throw new Error(`${routeId} answered ${res.status}: ${res.text}`);
      return pick(res);
    },
  }) satisfies RecordCreator;

/** Records that nest (entries under a BIA, actions under an assessment) share one parent per tenant. */
const parents = new Map<string, Promise<string>>();
const once = (key: string, make: () => Promise<string>) => {
  if (!parents.has(key)) parents.set(key, make());
  return parents.get(key)!;
};
async function apiCreate(
  tenant: Tenant,
  method: string,
  path: string,
  body: unknown,
  pick = (r: InvokeResult) => r.json?.result?.id as string,
) {
  const res = await invoke(method, path, { token: tenant.owner, body, ip: nextIp() });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return pick(res);
}
const BCM = '/api/bcm/admin';
const PRO_MONTHLY = PLANS.find((p) => p.code === 'professional')!.id;
const subscriptionOf = (t: Tenant) =>
  once(`subscription:${t.id}`, () =>
    apiCreate(
      t,
      'POST',
      '/api/subscriptions',
      { planId: PRO_MONTHLY, billingPeriod: 1 },
      (r) => r.json.result.subscriptionId,
    ),
  );
const CONTENT = '/api/content/admin';
/** Content is administered by SystemAdmin only: its records are created with the world's admin token. */
async function asAdmin(w: World, method: string, path: string, body: unknown) {
  const res = await invoke(method, path, { token: w.admin, body, ip: nextIp() });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.json.result.id as string;
}
export const siteOf = (w: World, t: Tenant) =>
  once(`site:${t.id}`, () =>
    asAdmin(w, 'POST', `${CONTENT}/sites`, {
      tenantId: t.id,
      domain: `site-${unique()}.example.com`,
      isMaster: false,
      defaultLocale: 'en',
      themeConfig: {},
      metadata: {},
      isActive: true,
    }),
  );
const biaOf = (t: Tenant) =>
  once(`bia:${t.id}`, () => apiCreate(t, 'POST', `${BCM}/bia`, { title: `BIA ${unique()}` }));
const riskOf = (t: Tenant) =>
  once(`risk:${t.id}`, () => apiCreate(t, 'POST', `${BCM}/risk`, { title: `Risk ${unique()}`, category: 0, level: 2 }));
const assessmentOf = (t: Tenant) =>
  once(`assessment:${t.id}`, async () => {
    const riskId = await riskOf(t);
    return apiCreate(
      t,
      'POST',
      `${BCM}/risk/${riskId}/risks`,
      { name: `Assessment ${unique()}`, score: 12 },
      (r) => r.json.result.id,
    );
  });

const knowledgeBaseOf = (t: Tenant) =>
  once(`kb:${t.id}`, async () => {
    await startKnowledgeStandIns();
    return apiCreate(t, 'POST', '/api/knowledge/bases', { name: `KB ${unique()}` });
  });

// AI agents: one agent and one widget per tenant (plan limits), channels as asked.
const agentOf = (t: Tenant) =>
  once(`agent:${t.id}`, async () =>
    apiCreate(t, 'POST', '/api/ai/agents', {
      name: `Agent ${unique()}`,
      promptId: await promptOf(t),
      modelId: LOCAL_MODEL_IDS.chat,
    }),
  );
const widgetOf = (t: Tenant) =>
  once(`widget:${t.id}`, async () =>
    apiCreate(t, 'POST', `/api/ai/agents/${await agentOf(t)}/widgets`, {
      name: `Widget ${unique()}`,
      allowedOrigins: ['https://fuzz.example.com'],
    }),
  );

const whatsAppChannelOf = (t: Tenant) =>
  once(`whatsapp-channel:${t.id}`, async () =>
    apiCreate(t, 'POST', '/api/ai/channels', {
      type: 'whatsapp',
      name: `Channel ${unique()}`,
      agentId: await agentOf(t),
      settings: { phoneNumberId: '106540352242922' },
      secrets: { 'app-secret': 'fuzz-app-secret', 'verify-token': 'fuzz-verify', 'access-token': 'EAAG-fuzz' },
    }),
  );

/** A published agent's widget per tenant, and a new widget session (a new conversation) on it. */
const publishedWidgetOf = (t: Tenant) =>
  once(`published-widget:${t.id}`, async () => (await publishedWidget(t.owner)).widgetKey);
const conversationOf = async (t: Tenant) => session(await publishedWidgetOf(t));
/** A widget key of the tenant's published agent, and a fresh session (its own conversation). */
export const widgetKeyOf = publishedWidgetOf;
export const newWidgetSession = async (t: Tenant) => (await conversationOf(t)).token;

const promptOf = (t: Tenant) =>
  once(`prompt:${t.id}`, () =>
    apiCreate(t, 'POST', '/api/prompts', { title: `Prompt ${unique()}`, content: 'Hello {{name}}' }),
  );

async function approvedVersionOf(t: Tenant) {
  const promptId = await promptOf(t);
  const id = await apiCreate(t, 'POST', `/api/prompts/${promptId}/new-version`, { versionNote: 'ab' });
  for (const step of ['review', 'approve']) {
    const res = await invoke('PUT', `/api/prompts/${promptId}/versions/${id}/${step}`, {
      token: t.owner,
      ip: nextIp(),
    });
    if (res.status >= 300) throw new Error(`prompts.${step} answered ${res.status}: ${res.text}`);
  }
  return id;
}

/**
 * A subscription per tenant with one delivery on its log, for the delivery detail route: the entry is
 * written as the worker writes it, so nothing is sent anywhere.
 */
const loggedSubscriptionOf = (t: Tenant) =>
  once(`logged-webhook-subscription:${t.id}`, () =>
    apiCreate(t, 'POST', '/api/webhook-subscriptions', {
      url: `https://hooks-${unique()}.example.com/in`,
      eventTypes: ['message.created'],
      description: null,
    }),
  );
async function webhookDeliveryOf(t: Tenant) {
  const subscriptionId = await loggedSubscriptionOf(t);
  const id = crypto.randomUUID();
  const at = new Date().toISOString();
  const item = deliveryItem({
    id,
    tenantId: t.id,
    subscriptionId,
    eventId: `evt_${crypto.randomUUID()}`,
    eventType: 'webhook.test',
    status: 'succeeded',
    attempts: 1,
    statusCode: 200,
    lastError: null,
    nextRetryAt: null,
    attemptLog: [{ attempt: 1, at, statusCode: 200, error: null, durationMs: 12 }],
    createdAt: at,
    updatedAt: at,
  });
  await ddb().send(new PutCommand({ TableName: config.tableName, Item: item }));
  return id;
}

const RECORD_CREATORS: Record<string, RecordCreator> = {
  supplierId: viaApi('suppliers.create', (t) => ({ name: `Supplier ${unique()}`, tenantId: t.id })),
  productId: viaApi('products.create', (t) => ({ name: `Product ${unique()}`, code: `P-${unique()}`, tenantId: t.id })),
  productServiceId: viaApi('products.create', (t) => ({
    name: `Product ${unique()}`,
    code: `P-${unique()}`,
    tenantId: t.id,
  })),
  roleId: viaApi('roles.create', (t) => ({ name: `Role ${unique()}`, tenantId: t.id })),
  groupId: viaApi('groups.create', (t) => ({ name: `Group ${unique()}`, tenantId: t.id })),
  departmentId: viaApi('departments.create', (t) => ({ name: `Dept ${unique()}`, tenantId: t.id })),
  parentId: viaApi('departments.create', (t) => ({ name: `Parent ${unique()}`, tenantId: t.id })),
  userId: {
    via: 'seeded with createUser (no user-create route: users join by invitation)',
    create: async (_w, tenant) => (await seedUser(tenant.id, ['TenantMember'])).id,
  },
  slug: { via: 'the tenant itself (tenants.create)', create: async (_w, tenant) => tenant.slug },
  biaId: { via: 'bcm.bia.create', create: async (_w, tenant) => biaOf(tenant) },
  entryId: {
    via: 'bcm.entries.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', `${BCM}/bia/${await biaOf(tenant)}/entries`, { briefDescription: `Entry ${unique()}` }),
  },
  assignmentId: {
    via: 'bcm.bia.assign',
    create: async (_w, tenant) => {
      const user = await seedUser(tenant.id, ['TenantMember']);
      await apiCreate(tenant, 'POST', `${BCM}/bia/${await biaOf(tenant)}/assignments`, { userId: user.id, type: 0 });
      return user.id;
    },
  },
  riskId: { via: 'bcm.risks.create', create: async (_w, tenant) => riskOf(tenant) },
  siteId: { via: 'content.sites.create', create: async (w, tenant) => siteOf(w, tenant) },
  pageId: {
    via: 'content.pages.create',
    create: async (w, tenant) =>
      asAdmin(w, 'POST', `${CONTENT}/sites/${await siteOf(w, tenant)}/pages`, {
        slug: `p-${unique()}`,
        pageType: 0,
        sortOrder: 0,
        isPublished: true,
        settings: '{}',
      }),
  },
  postId: {
    via: 'content.blog.create',
    create: async (w, tenant) =>
      asAdmin(w, 'POST', `${CONTENT}/sites/${await siteOf(w, tenant)}/blog`, {
        slug: `b-${unique()}`,
        authorName: 'Fuzz',
        category: 'news',
        tags: [],
        isPublished: true,
      }),
  },
  promptId: { via: 'prompts.create', create: async (_w, tenant) => promptOf(tenant) },
  versionId: {
    via: 'prompts.newVersion',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', `/api/prompts/${await promptOf(tenant)}/new-version`, { versionNote: 'fuzz' }),
  },
  // An A/B test names two approved versions of the route's prompt (the world's): each is a new
  // version, reviewed and approved (the one approved before it becomes Archived, still approved).
  reviewedVersionId: {
    via: 'prompts.review',
    create: async (_w, tenant) => {
      const promptId = await promptOf(tenant);
      const id = await apiCreate(tenant, 'POST', `/api/prompts/${promptId}/new-version`, { versionNote: 'fuzz' });
      await apiCreate(tenant, 'PUT', `/api/prompts/${promptId}/versions/${id}/review`, undefined, () => id);
      return id;
    },
  },
  testCaseId: {
    via: 'prompts.testCases.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', `/api/prompts/${await promptOf(tenant)}/test-cases`, {
        question: `fuzz ${unique()}`,
        mustContain: [],
        mustNotContain: [],
      }),
  },
  knowledgeBaseId: { via: 'knowledge.bases.create', create: async (_w, tenant) => knowledgeBaseOf(tenant) },
  versionAId: { via: 'prompts.approve', create: async (_w, tenant) => approvedVersionOf(tenant) },
  versionBId: { via: 'prompts.approve', create: async (_w, tenant) => approvedVersionOf(tenant) },
  toolId: {
    via: 'tools.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', '/api/tools', { displayName: `Tool ${unique()}`, baseToolId: BUILT_IN_TOOLS[0]!.id }),
  },
  // An MCP Server tool with no server yet: its tool list reads as empty.
  mcpToolId: {
    via: 'tools.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', '/api/tools', {
        displayName: `MCP ${unique()}`,
        baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'mcp')!.id,
      }),
  },
  assessmentId: { via: 'bcm.assessments.create', create: async (_w, tenant) => assessmentOf(tenant) },
  tenantId: { via: 'the tenant itself (tenants.create)', create: async (_w, tenant) => tenant.id },
  planId: { via: 'the seeded plans (Professional, monthly)', create: async () => PRO_MONTHLY },
  subscriptionId: { via: 'billing.subscriptions.create', create: async (_w, tenant) => subscriptionOf(tenant) },
  // Outbound webhooks: a subscription to a public name (it does not resolve here, which a save allows).
  webhookSubscriptionId: viaApi('webhookSubscriptions.create', () => ({
    url: `https://hooks-${unique()}.example.com/in`,
    eventTypes: ['message.created'],
    description: null,
  })),
  loggedWebhookSubscriptionId: {
    via: 'webhookSubscriptions.create',
    create: async (_w, tenant) => loggedSubscriptionOf(tenant),
  },
  webhookDeliveryId: {
    via: 'the delivery log, written as the delivery worker writes it',
    create: async (_w, tenant) => webhookDeliveryOf(tenant),
  },
  paymentMethodId: viaApi('billing.methods.add', () => ({ provider: 1, token: 'tok_visa' })),
  paymentId: {
    via: 'billing.payments.process',
    create: async (_w, tenant) =>
      apiCreate(
        tenant,
        'POST',
        '/api/payments/process',
        { subscriptionId: await subscriptionOf(tenant), amount: 5, currency: 'USD' },
        (r) => r.json.result.paymentId,
      ),
  },
  invoiceId: {
    via: 'billing.payments.process (a stored card, settled by the local provider webhook)',
    create: async (_w, tenant) => {
      await startBillingStandIns();
      const method = await apiCreate(tenant, 'POST', '/api/payment-methods', { provider: 1, token: 'tok_visa' });
      const paymentId = await apiCreate(
        tenant,
        'POST',
        '/api/payments/process',
        { subscriptionId: await subscriptionOf(tenant), amount: 5, currency: 'USD', paymentMethodId: method },
        (r) => r.json.result.paymentId,
      );
      const history = await invoke('GET', '/api/payments/history', { token: tenant.owner, ip: nextIp() });
      return history.json.result.items.find((p: { id: string }) => p.id === paymentId).invoiceId as string;
    },
  },
  actionId: {
    via: 'bcm.actions.create',
    create: async (_w, tenant) =>
      apiCreate(
        tenant,
        'POST',
        `${BCM}/risk/${await riskOf(tenant)}/risks/${await assessmentOf(tenant)}/actions`,
        { title: `Action ${unique()}` },
        (r) => r.json.result.id,
      ),
  },
  // AI agents: agentId, widgetId, channelId. The agents' restore names versionId too, and
  // the world's versionId is a prompt version's: the fuzzed restore answers 404 (no such agent version).
  agentId: { via: 'ai.agents.create', create: async (_w, tenant) => agentOf(tenant) },
  widgetId: { via: 'ai.widgets.create', create: async (_w, tenant) => widgetOf(tenant) },
  channelId: {
    via: 'ai.channels.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', '/api/ai/channels', {
        type: 'telegram',
        name: `Channel ${unique()}`,
        agentId: await agentOf(tenant),
        secrets: { 'bot-token': 'fuzz-bot-token' },
      }),
  },
  // Connections of the platforms whose routes refuse others (recordKind picks them per route): one
  // WhatsApp connection per tenant carries its templates; a Discord connection can register /ask.
  whatsAppChannelId: { via: 'ai.channels.create', create: async (_w, tenant) => whatsAppChannelOf(tenant) },
  discordChannelId: {
    via: 'ai.channels.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', '/api/ai/channels', {
        type: 'discord',
        name: `Channel ${unique()}`,
        agentId: await agentOf(tenant),
        settings: { applicationId: '775799577604522054', publicKey: 'ab'.repeat(32) },
        secrets: { 'bot-token': 'MTA-fuzz-bot-token' },
      }),
  },
  // A template name follows Meta's rule (lowercase letters, digits, `_`).
  templateId: {
    via: 'connector.templates.create',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', `/api/ai/channels/${await whatsAppChannelOf(tenant)}/templates`, {
        name: `fuzz_${unique()}`,
        language: 'en_US',
        parameterCount: 1,
      }),
  },
  // AI connector: a proactive message scheduled a day ahead (so a fuzzed cancel finds it Scheduled),
  // on a Telegram connection of the tenant (no 24-hour window there).
  messageId: {
    via: 'connector.proactive.create',
    create: async (_w, tenant) => {
      const channelId = await apiCreate(tenant, 'POST', '/api/ai/channels', {
        type: 'telegram',
        name: `Channel ${unique()}`,
        agentId: await agentOf(tenant),
        secrets: { 'bot-token': '123456:fuzz-bot-token' },
      });
      return apiCreate(tenant, 'POST', '/api/proactive-messages', {
        channelId,
        recipient: '424242',
        text: `Fuzz ${unique()}`,
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      });
    },
  },
  // AI conversations: a widget session's conversation (a published agent's widget per tenant).
  conversationId: {
    via: 'conversations.widget.start',
    create: async (_w, tenant) => (await conversationOf(tenant)).conversationId,
  },
  // Manage Schedule: a calendar of the tenant.
  calendarId: viaApi('ai.calendars.create', (t) => ({
    name: `Calendar ${unique()}`,
    timeZone: 'Europe/Berlin',
    weeklyHours: [{ day: 1, start: '09:00', end: '12:00' }],
    slotMinutes: 30,
    bufferMinutes: 0,
    horizonDays: 30,
    tenantId: t.id,
  })),
  // AI knowledge: a base per tenant, and a JSON-text document in it (indexed by the test queue at once).
  kbId: { via: 'knowledge.bases.create', create: async (_w, tenant) => knowledgeBaseOf(tenant) },
  documentId: {
    via: 'knowledge.documents.upload',
    create: async (_w, tenant) =>
      apiCreate(tenant, 'POST', `/api/knowledge/bases/${await knowledgeBaseOf(tenant)}/documents`, {
        title: `Doc ${unique()}`,
        text: 'Fuzzing sentence about knowledge bases and their documents.',
      }),
  },
  // A source that reads the tenant's own content site: its sync makes no HTTP request, so a fuzzed
  // sync stays on this machine.
  sourceId: {
    via: 'knowledge.sources.create',
    create: async (w, tenant) =>
      apiCreate(tenant, 'POST', `/api/knowledge/bases/${await knowledgeBaseOf(tenant)}/sources`, {
        type: 'site',
        name: `Source ${unique()}`,
        settings: { siteId: await siteOf(w, tenant) },
      }),
  },
  // A base's MCP endpoint, minted with its own gateway key.
  endpointId: {
    via: 'knowledge.mcp.mint',
    create: async (_w, tenant) =>
      apiCreate(
        tenant,
        'POST',
        `/api/knowledge/bases/${await knowledgeBaseOf(tenant)}/mcp`,
        undefined,
        (r) => r.json.result.endpointId,
      ),
  },
  uploadId: {
    via: 'knowledge.documents.presignUpload',
    create: async (_w, tenant) =>
      apiCreate(
        tenant,
        'POST',
        `/api/knowledge/bases/${await knowledgeBaseOf(tenant)}/documents/presigned-upload`,
        { fileName: 'fuzz.txt', contentType: 'text/plain', size: 10 },
        (r) => r.json.result.uploadId,
      ),
  },
  // The LLM gateway: a tenant's gateway key; a catalog model (platform record, SystemAdmin's), a fresh
  // one per call so a fuzzed PUT never rewrites the seeded local models other tests call.
  keyId: viaApi('llmGateway.keys.create', () => ({ name: `Key ${unique()}` })),
  modelId: {
    via: 'llmGateway.models.put',
    create: async (w) => {
      const id = crypto.randomUUID();
      const res = await invoke('PUT', `/api/llm-gateway/models/${id}`, {
        token: w.admin,
        ip: nextIp(),
        body: {
          name: `fuzz-${unique()}`,
          provider: 'local',
          providerModel: 'echo',
          kind: 'chat',
          inputPricePerMillion: 1,
          outputPricePerMillion: 1,
          contextWindow: 1000,
        },
      });
      if (res.status >= 300) throw new Error(`llmGateway.models.put answered ${res.status}: ${res.text}`);
      return id;
    },
  },
};

/** Whether a creator can run now: its create route must be in the table. */
/**
 * Which record creator fills a route's parameter: the parameter's name, except where a route works
 * only on one platform's connection (templates are WhatsApp's, the slash command Discord's).
 */
const ROUTE_RECORD_KINDS: Record<string, Record<string, string>> = {
  'connector.templates.create': { channelId: 'whatsAppChannelId' },
  'connector.templates.list': { channelId: 'whatsAppChannelId' },
  'connector.templates.delete': { channelId: 'whatsAppChannelId' },
  'connector.discord.commands': { channelId: 'discordChannelId' },
  // A version has an evaluation once it went to review.
  'prompts.evaluation': { versionId: 'reviewedVersionId' },
  // A tool's MCP list is an MCP Server tool's.
  'tools.mcp.tools': { toolId: 'mcpToolId' },
  // A delivery is read under the subscription whose log holds it.
  'webhookSubscriptions.delivery': {
    webhookSubscriptionId: 'loggedWebhookSubscriptionId',
    deliveryId: 'webhookDeliveryId',
  },
};
export const recordKind = (route: { id: string }, name: string) => ROUTE_RECORD_KINDS[route.id]?.[name] ?? name;

export const creatorAvailable = (
  name: string,
): { ok: true; creator: RecordCreator } | { ok: false; reason: string } => {
  const creator = RECORD_CREATORS[name];
  if (!creator)
    return { ok: false, reason: `no creator registered for a '${name}' record (add one to RECORD_CREATORS)` };
  if (/^[a-z]+\.[a-zA-Z.]+$/.test(creator.via) && !routeById(creator.via)) {
    return { ok: false, reason: `its create route ${creator.via} is not in the table yet` };
  }
  return { ok: true, creator };
};
