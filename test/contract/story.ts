import createClient from 'openapi-fetch';
import type { paths } from './generated/api.ts';

/** The typed client every story drives: only the document's paths, methods, bodies and answers. */
export type ApiClient = ReturnType<typeof createClient<paths>>;

export interface StoryContext {
  /** An anonymous client; `makeClient(baseUrl, headers)` gives one with credentials. */
  client: ApiClient;
  baseUrl: string;
  adminEmail: string;
  adminPassword: string;
  /**
   * The admin's access token, signed in once for all stories: sign-in is rate limited per address
   * (5 a minute), so only the identity story signs in itself.
   */
  adminSession: () => Promise<string>;
  internalApiKey: string;
  /** A fresh tag for unique names. */
  tag: string;
}

/** One area's story: throws (or fails an expect) when the API and its document disagree. */
export type Story = (ctx: StoryContext) => Promise<void>;

export const makeClient = (baseUrl: string, headers: Record<string, string> = {}): ApiClient =>
  createClient<paths>({ baseUrl, headers });

/** The result of a call that must succeed, or an error naming the operation and the answer. */
export function ok<T extends { data?: unknown; error?: unknown; response: Response }>(
  what: string,
  call: T,
): NonNullable<T['data']> {
  if (!call.data) throw new Error(`${what}: ${call.response.status} ${JSON.stringify(call.error)}`);
  return call.data as NonNullable<T['data']>;
}

type TenantBody = NonNullable<paths['/api/tenants']['post']['requestBody']>['content']['application/json'];

/**
 * The preamble most stories share: the admin's client (the session signed in once for all stories)
 * and a fresh tenant named after the story (`{prefix}-{tag}`), with the smallest limits unless
 * `limits` says otherwise.
 */
export async function adminWithTenant(
  ctx: Pick<StoryContext, 'baseUrl' | 'tag' | 'adminSession'>,
  prefix: string,
  limits: Partial<Omit<TenantBody, 'slug' | 'name' | 'email'>> = {},
) {
  const admin = makeClient(ctx.baseUrl, { authorization: `Bearer ${await ctx.adminSession()}` });
  const tenant = ok(
    `tenant ${prefix}`,
    await admin.POST('/api/tenants', {
      body: {
        slug: `${prefix}-${ctx.tag}`,
        name: `${prefix} ${ctx.tag}`,
        email: `${prefix}-${ctx.tag}@typed.example`,
        planType: 1,
        maxAgents: 1,
        maxKnowledgeBases: 1,
        maxSeats: 5,
        ...limits,
      },
    }),
  ).result;
  return { admin, tenant, query: { tenantId: tenant.id } };
}

/** A prompt of the tenant whose version 1 is Active (submitted and approved), on the catalog's chat model. */
export async function approvedPrompt(admin: ApiClient, tenantId: string) {
  const query = { tenantId };
  const models = ok('models', await admin.GET('/api/ai/models', { params: { query } })).result;
  const chat = models.find((m) => m.kind === 'chat')!;
  const prompt = ok(
    'prompt',
    await admin.POST('/api/prompts', {
      body: { title: 'Support', content: 'You are {{agent_name}}.', modelId: chat.id, tenantId },
    }),
  ).result;
  const pv = { promptId: prompt.id, versionId: prompt.versions[0]!.id };
  await admin.PUT('/api/prompts/{promptId}/versions/{versionId}/review', { params: { path: pv } });
  await admin.PUT('/api/prompts/{promptId}/versions/{versionId}/approve', { params: { path: pv } });
  return { prompt, pv };
}
