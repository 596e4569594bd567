import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { redirectAllowList } from '#areas/identity/identity-providers.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import type { InvokeOptions } from '#test/support/invoke.ts';
import { invoke } from '#test/support/invoke.ts';
import { isSystemAdminOnly, NOT_TENANT_REFERENCES, recordParams, recordRefs, sampleValid } from './route-matrix.ts';
import { ORIGIN as WIDGET_ORIGIN } from '#test/support/conversations.ts';
import {
  createTenant,
  creatorAvailable,
  credentialsFor,
  newWidgetSession,
  nextIp,
  PASSWORD,
  recordKind,
  seedUser,
  siteOf,
  widgetKeyOf,
  type World,
} from './world.ts';

export interface SemanticRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
  creds: Pick<InvokeOptions, 'token' | 'headers'>;
}

/** Routes that act on the caller's own account (signed in, no role or permission named). */
const accountScoped = (route: RouteDef) => route.auth.kind === 'bearer' && !route.auth.roles && !route.auth.permission;

async function signedInUser(world: World) {
  const user = await seedUser(world.a.id, ['TenantMember']);
  const res = await invoke('POST', '/api/auth/login', {
    body: { email: user.email, password: PASSWORD },
    ip: nextIp(),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
  return { ...user, ...(res.json.result as { accessToken: string; refreshToken: string }) };
}

/**
 * A request its caller is allowed to make and that the handler should carry out: the sampled
 * valid input, with fresh records of tenant A in the path, real records for references, unique
 * names, existing role names, an allowed redirect URI, and a real account and session where the
 * route works on one. Routes that need a one-time code from an e-mail stay refused.
 */
export async function semanticRequest(route: RouteDef, world: World): Promise<SemanticRequest> {
  const sample = sampleValid(route);
  const tag = crypto.randomUUID().slice(0, 8);
  let creds = credentialsFor(route, world);
  const params = { ...sample.params };
  for (const name of recordParams(route)) {
    if (name === 'slug') {
      params.slug = isSystemAdminOnly(route) ? (await createTenant(world.admin, 'sem')).slug : world.a.slug;
      continue;
    }
    const c = creatorAvailable(recordKind(route, name));
    if (!c.ok) throw new Error(c.reason);
    params[name] = await c.creator.create(world, world.a);
  }
  const query: Record<string, unknown> = { ...sample.query };
  delete query.tenantId;
  const body =
    sample.body && typeof sample.body === 'object' ? { ...(sample.body as Record<string, unknown>) } : undefined;
  for (const ref of recordRefs(route)) {
    const c = creatorAvailable(recordKind(route, ref.name));
    if (!c.ok) throw new Error(c.reason);
    const id = await c.creator.create(world, world.a);
    if (ref.where === 'query') query[ref.name] = id;
    else if (body) body[ref.name] = id;
  }
  if (body) {
    for (const [name, ref] of Object.entries(NOT_TENANT_REFERENCES)) if (name in body) body[name] = ref.value();
    if ('roles' in body) body.roles = ['TenantMember'];
    if ('permissions' in body) body.permissions = ['suppliers:read'];
    if ('email' in body) body.email = `s-${tag}@example.com`;
    if ('name' in body) body.name = `Name ${tag}`;
    if ('tenantName' in body) body.tenantName = `Tenant ${tag}`;
    if ('code' in body && route.method === 'POST' && !route.path.startsWith('/api/auth/')) body.code = `C-${tag}`;
    if ('slug' in body) body.slug = `s-${tag}`;
    if ('domain' in body) body.domain = `d-${tag}.example.com`;
    if (route.group === 'content-admin') {
      // A tenant has one master site; a page's parentId names a page (top level here), not a department.
      if ('isMaster' in body) body.isMaster = false;
      if ('parentId' in body) body.parentId = null;
      if ('contentType' in body && 'size' in body) Object.assign(body, { contentType: 'application/pdf', size: 1024 });
    }
    if (route.group === 'agents') {
      // AI agents: a chat model of the catalog, no bases or tools (checked per tenant), an https origin.
      if ('promptId' in body) body.modelId = LOCAL_MODEL_IDS.chat;
      if ('knowledgeBaseIds' in body) body.knowledgeBaseIds = [];
      if ('toolIds' in body) body.toolIds = [];
      if ('allowedOrigins' in body) body.allowedOrigins = ['https://fuzz.example.com'];
      if ('settings' in body) body.settings = {};
      if ('secrets' in body) body.secrets = {};
    }
    if (route.id === 'conversations.widget.start') {
      body.widgetKey = await widgetKeyOf(world.a);
      creds = { headers: { origin: WIDGET_ORIGIN } };
    }
    // The tools' own tool is a Browser Action (the first built-in), which sends through no channel.
    if (route.group === 'tools' && 'channelId' in body) body.channelId = null;
    // Nor does it book in a calendar (only Manage Schedule takes one).
    if (route.group === 'tools' && 'calendarId' in body) body.calendarId = null;
    const params = body.configParams as Record<string, unknown> | undefined;
    if (route.group === 'tools' && params && typeof params === 'object') {
      if ('calendarId' in params) params.calendarId = null;
      // Nor is it an MCP Server tool: it takes no server tools.
      if ('allowedTools' in params) params.allowedTools = [];
      if ('toolApproval' in params) params.toolApproval = {};
    }
    // A knowledge source that reads the tenant's own site: its sync stays on this machine.
    if (route.id === 'knowledge.sources.create')
      Object.assign(body, { type: 'site', settings: { siteId: await siteOf(world, world.a) } });
    // An integrator's receiver: a public name (it does not resolve here, which a save allows).
    if (route.id === 'webhookSubscriptions.create') body.url = `https://hooks-${tag}.example.com/in`;
    // A WhatsApp template's name is Meta's: lowercase letters, digits, `_`.
    if (route.id === 'connector.templates.create') body.name = `t_${tag}`;
    if (route.id === 'connector.proactive.create') {
      // AI connector: a proactive message a day ahead, so no send reaches a platform during the run.
      body.scheduledAt = new Date(Date.now() + 86_400_000).toISOString();
    }
    if ('tenantId' in body) body.tenantId = world.a.id;
    if ('redirectUri' in body) body.redirectUri = redirectAllowList()[0];
    if ('currentPassword' in body) body.currentPassword = PASSWORD;
    // Billing: a plan's own period, no trial, an amount and currency that fit, a card the local provider accepts.
    if ('billingPeriod' in body) body.billingPeriod = 1;
    if ('trialDays' in body) body.trialDays = null;
    if ('amount' in body) body.amount = 5;
    if ('currency' in body) body.currency = 'USD';
    if ('paymentMethodId' in body) body.paymentMethodId = null;
    if ('token' in body && 'provider' in body) body.token = 'tok_visa';
  }
  if (
    accountScoped(route) ||
    (route.auth.kind === 'none' && body && 'email' in body && 'password' in body && !('firstName' in body))
  ) {
    const user = await signedInUser(world);
    if (accountScoped(route)) creds = { token: user.accessToken };
    if (body) {
      if ('email' in body) body.email = user.email;
      if ('password' in body) body.password = PASSWORD;
      if ('accessToken' in body) body.accessToken = user.accessToken;
      if ('refreshToken' in body) body.refreshToken = user.refreshToken;
    }
  }
  // Each widget request on a conversation of its own: one that rated and closed its conversation
  // leaves the next one a conversation that still takes messages.
  if (route.auth.kind === 'widgetSession') creds = { headers: { 'x-widget-session': await newWidgetSession(world.a) } };
  return { params, query, body, creds };
}
