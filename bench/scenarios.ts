import { hashPassword } from '#areas/identity/password.ts';
import { createUser } from '#areas/identity/user-accounts.ts';
import { invoke, putTenant, tokenFor, type BenchRequest } from './harness.ts';

export interface ScenarioContext {
  tenantId: string;
  ownerToken: string;
  adminToken: string;
  internalKey: string;
}

export const BENCH_PASSWORD = 'Bench-Passw0rd-2026!';

/**
 * The tenant every measured request acts in, made as production makes it: a SystemAdmin creates
 * it through `POST /api/tenants` (Active, with its system roles), and its owner is a stored,
 * verified user with a password (so sign-in can be measured through the real route). Falls back
 * to a bare tenant item and a token-only owner when those routes are not there yet.
 */
export async function bootstrapIdentity() {
  const notes: string[] = [];
  const platformAdmin = await tokenFor(null, 'SystemAdmin');
  const suffix = crypto.randomUUID().slice(0, 8);
  let tenantId: string | undefined;
  const created = await invoke({
    method: 'POST',
    path: '/api/tenants',
    token: platformAdmin,
    body: {
      slug: `bench-${suffix}`,
      name: `Bench ${suffix}`,
      email: `billing-${suffix}@bench.example`,
      planType: 2,
      maxAgents: 10,
      maxKnowledgeBases: 10,
      maxSeats: 100,
    },
  }).catch((err: Error) => ({ status: 0, json: { error: { code: err.message } } }));
  if (created.status === 201 && typeof created.json?.result?.id === 'string') {
    tenantId = created.json.result.id as string;
    notes.push('tenant created through POST /api/tenants');
  } else {
    tenantId = crypto.randomUUID();
    await putTenant(tenantId);
    notes.push(`POST /api/tenants answered ${created.status} ${created.json?.error?.code ?? ''}: bare tenant item`);
  }
  const email = `owner-${suffix}@bench.example`;
  const user = { id: crypto.randomUUID(), email };
  let owner: { email: string; password: string } | null = null;
  try {
    await createUser(
      {
        ...user,
        firstName: 'Bench',
        lastName: 'Owner',
        phoneNumber: null,
        roles: ['TenantOwner'],
        tenantId,
        isActive: true,
        isEmailVerified: true,
        avatarUrl: null,
        departmentId: null,
        passwordHash: await hashPassword(BENCH_PASSWORD),
        createdAt: new Date().toISOString(),
      },
      null,
    );
    owner = { email, password: BENCH_PASSWORD };
    notes.push('owner stored with createUser');
  } catch (err) {
    notes.push(`createUser failed (${(err as Error).message}): token-only owner`);
  }
  return {
    tenantId,
    ownerId: user.id,
    ownerToken: await tokenFor(tenantId, 'TenantOwner', user),
    adminToken: await tokenFor(tenantId, 'SystemAdmin'),
    owner,
    identityNote: notes.join('; '),
  };
}

export const VAULT_ENVIRONMENT = 'bench';
export const VAULT_KEY = 'BENCH_SECRET';

/**
 * Records created through the API before the read routes are measured, so that GET routes have
 * something to read. GET-by-id routes find their ids in the list route at their parent path
 * (`/api/suppliers/{supplierId}` takes the first item of `GET /api/suppliers`). When an area
 * lands, add one create request per collection here; requests whose route is not in the table
 * yet are skipped, and a seed that fails is reported, not fatal. The TenantOwner token is used
 * unless the request names another. A record under another (a BIA's entry, a site's page) is a
 * function of the ids created before it, by route id; it is skipped when its parent failed.
 */
export type SeedRequest = BenchRequest | ((created: Readonly<Record<string, string>>) => BenchRequest | null);

const under = (parent: string, request: (id: string) => BenchRequest) => (created: Readonly<Record<string, string>>) =>
  created[parent] ? request(created[parent]) : null;

export const seedRequests = (ctx: ScenarioContext): SeedRequest[] => [
  {
    method: 'POST',
    path: '/api/suppliers',
    body: {
      name: 'Bench Supplier',
      contactPerson: 'Ann Lee',
      email: 'ann@bench.example',
      phone: '+1 555 0100',
      tenantId: ctx.tenantId,
    },
  },
  {
    method: 'POST',
    path: '/api/product-services',
    body: { name: 'Bench Product', code: 'BENCH-1', description: 'Seeded by the bench', tenantId: ctx.tenantId },
  },
  {
    method: 'POST',
    path: '/api/roles',
    body: { name: 'Bench Role', description: 'Seeded by the bench', tenantId: ctx.tenantId },
  },
  { method: 'POST', path: '/api/departments', body: { name: 'Bench Department', tenantId: ctx.tenantId } },
  {
    method: 'POST',
    path: '/api/groups',
    body: { name: 'Bench Group', description: 'Seeded by the bench', tenantId: ctx.tenantId },
  },
  {
    method: 'POST',
    path: '/api/prompts',
    body: { title: 'Bench Prompt', content: 'Hello {{name}}', tenantId: ctx.tenantId },
  },
  {
    method: 'POST',
    path: '/api/tools',
    body: { displayName: 'Bench Tool', baseToolId: '23797d82-d726-4319-bf1d-c8dd02ca89fb', tenantId: ctx.tenantId },
  },
  { method: 'POST', path: '/api/bcm/admin/bia', body: { title: 'Bench BIA', tenantId: ctx.tenantId } },
  under('bcm.bia.create', (id) => ({
    method: 'POST',
    path: `/api/bcm/admin/bia/${id}/entries`,
    body: { briefDescription: 'Bench entry' },
  })),
  {
    method: 'POST',
    path: '/api/bcm/admin/risk',
    body: { title: 'Bench risk', category: 0, level: 1, tenantId: ctx.tenantId },
  },
  {
    method: 'POST',
    path: '/api/content/admin/sites',
    token: ctx.adminToken,
    body: {
      tenantId: ctx.tenantId,
      domain: `bench-${ctx.tenantId.slice(0, 8)}.example.com`,
      isMaster: false,
      defaultLocale: 'en',
      themeConfig: {},
      metadata: {},
      isActive: true,
    },
  },
  under('content.sites.create', (id) => ({
    method: 'POST',
    path: `/api/content/admin/sites/${id}/pages`,
    token: ctx.adminToken,
    body: { slug: 'bench', pageType: 0, sortOrder: 0, isPublished: true, settings: '{}' },
  })),
  under('content.sites.create', (id) => ({
    method: 'POST',
    path: `/api/content/admin/sites/${id}/blog`,
    token: ctx.adminToken,
    body: { slug: 'bench', authorName: 'Bench', category: 'news', tags: [], isPublished: true },
  })),
  under('content.sites.create', (id) => ({
    method: 'POST',
    path: `/api/content/sites/${id}/forms/submit`,
    body: { formType: 'contact', fields: { name: 'Bench' } },
  })),
  {
    method: 'PUT',
    path: `/api/secrets/${VAULT_ENVIRONMENT}/${VAULT_KEY}`,
    headers: { 'x-internal-api-key': ctx.internalKey },
    body: { value: 'bench-value' },
  },
  // AI knowledge: a base (its documents need the S3 stand-in; bench/knowledge.ts measures them).
  { method: 'POST', path: '/api/knowledge/bases', body: { name: 'Bench KB', tenantId: ctx.tenantId } },
  // AI connector: a proactive message (scheduled a day ahead, so nothing is sent) on a Telegram
  // connection of an agent of the bench prompt; its GET by id and list are then measured.
  under('prompts.create', (id) => ({
    method: 'POST',
    path: '/api/ai/agents',
    body: { name: 'Bench Agent', promptId: id, tenantId: ctx.tenantId },
  })),
  under('ai.agents.create', (id) => ({
    method: 'POST',
    path: '/api/ai/channels',
    body: {
      type: 'telegram',
      name: 'Bench Bot',
      agentId: id,
      secrets: { 'bot-token': '123456:bench' },
      tenantId: ctx.tenantId,
    },
  })),
  under('ai.channels.create', (id) => ({
    method: 'POST',
    path: '/api/proactive-messages',
    body: {
      channelId: id,
      recipient: '5151',
      text: 'Bench',
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
      tenantId: ctx.tenantId,
    },
  })),
];

/** Explicit requests for read routes the generic rule cannot build (non-id path values, ...). */
export const readOverrides: Record<string, (ctx: ScenarioContext) => BenchRequest> = {
  'vault.list': (ctx) => ({
    method: 'GET',
    path: `/api/secrets/${VAULT_ENVIRONMENT}`,
    headers: { 'x-internal-api-key': ctx.internalKey },
  }),
  'vault.get': (ctx) => ({
    method: 'GET',
    path: `/api/secrets/${VAULT_ENVIRONMENT}/${VAULT_KEY}`,
    headers: { 'x-internal-api-key': ctx.internalKey },
  }),
};
