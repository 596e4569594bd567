import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { MAX_VERSIONS } from '#areas/prompts/lifecycle.ts';
import { prompts } from '#areas/prompts/records.ts';
import { METHOD_LIMIT } from '#areas/billing/vocabulary.ts';
import { promptTokens } from '#areas/llm-gateway/prompt-tokens.ts';
import { errorCode } from '#test/support/fuzz/checks.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { useBillingStandIns } from '#test/support/billing.ts';
import { CALENDAR_BODY, CALENDARS } from '#test/support/calendars.ts';
import { invoke, type InvokeResult } from '#test/support/invoke.ts';
import { testMailer } from '#test/support/test-ports.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';

/**
 * The general guard: every count limit of the API holds under 20 parallel requests. Each
 * limit has a scenario that fills its state to `free` open slots and returns one request; the guard
 * sends 20 at once and expects exactly `free` to pass, the rest refused with the limit's 4xx. A limit
 * code the source answers with but no scenario names fails the first test, so a new limit cannot
 * land untested under concurrency.
 */
useBillingStandIns();

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PARALLEL = 20;
let ip = 0;
const nextIp = () => `10.77.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`;
const tag = () => crypto.randomUUID().slice(0, 8);

interface Scenario {
  /** Open slots left before the burst. */
  free: number;
  /** One request of the burst (a fresh one each call; PARALLEL + 1 calls in all). */
  attempt: () => Promise<InvokeResult>;
  /** What is stored after the burst: it must be the limit, never more. */
  stored: () => Promise<number>;
  limit: number;
}

interface CountLimit {
  name: string;
  /** The error code a request over the limit answers (409 unless said). */
  code: string;
  scenario: () => Promise<Scenario>;
}

async function ownTenant() {
  const admin = await tokenFor({ role: 'SystemAdmin' });
  const slug = `limits-${tag()}`;
  const res = await invoke('POST', '/api/tenants', {
    token: admin,
    body: {
      slug,
      name: `Limits ${tag()}`,
      email: `owner-${tag()}@example.com`,
      planType: 1,
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxSeats: 5,
    },
    ip: nextIp(),
  });
  expect(res).toAnswer(201);
  const id = res.json.result.id as string;
  return { id, slug, admin, owner: await tokenFor({ tenantId: id }) };
}

const LIMITS: CountLimit[] = [
  {
    name: `payment methods per tenant (${METHOD_LIMIT})`,
    code: 'LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const add = () =>
        invoke('POST', '/api/payment-methods', {
          token: t.owner,
          body: { provider: 1, token: 'tok_visa' },
          ip: nextIp(),
        });
      for (let i = 0; i < METHOD_LIMIT - 1; i++) expect((await add()).status).toBe(201);
      const stored = async () =>
        ((await invoke('GET', '/api/payment-methods', { token: t.owner, ip: nextIp() })).json.result as unknown[])
          .length;
      return { free: 1, attempt: add, stored, limit: METHOD_LIMIT };
    },
  },
  {
    name: 'seats of a tenant (maxSeats), taken by invitees registering',
    code: 'SEAT_LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const seats = async () =>
        (await invoke('GET', `/api/tenants/${t.slug}`, { token: t.admin, ip: nextIp() })).json.result
          .seatCount as number;
      const limit = (await seats()) + 1;
      expect(
        await invoke('PUT', `/api/tenants/${t.slug}`, { token: t.admin, body: { maxSeats: limit }, ip: nextIp() }),
      ).toAnswer(200);
      const invitees: { email: string; code: string }[] = [];
      for (let i = 0; i <= PARALLEL; i++) {
        const email = `seat-${i}-${tag()}@example.com`;
        const res = await invoke('POST', `/api/tenants/${t.slug}/invitations`, {
          token: t.admin,
          body: { email, roles: ['TenantMember'] },
          ip: nextIp(),
        });
        expect(res).toAnswer(201);
        invitees.push({ email, code: /Invitation code: (\S+)/.exec(testMailer.outbox.at(-1)!.text)![1]! });
      }
      let next = 0;
      const attempt = () => {
        const who = invitees[next++]!;
        return invoke('POST', '/api/auth/register', {
          body: {
            email: who.email,
            password: 'Str0ng-Passw0rd!',
            firstName: 'New',
            lastName: 'Member',
            invitationCode: who.code,
          },
          ip: nextIp(),
        });
      };
      return { free: 1, attempt, stored: seats, limit };
    },
  },
  {
    name: `versions of a prompt (${MAX_VERSIONS})`,
    code: 'LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const created = await invoke('POST', '/api/prompts', {
        token: t.owner,
        body: { title: `Limit ${tag()}`, content: 'Hello {{name}}', tenantId: t.id },
        ip: nextIp(),
      });
      expect(created).toAnswer(201);
      const id = created.json.result.id as string;
      // Filling 499 versions through the API would take minutes: the counter says so instead.
      await ddb().send(
        new UpdateCommand({
          TableName: config.tableName,
          Key: prompts.key(t.id, id),
          UpdateExpression: 'SET versionCount = :n',
          ExpressionAttributeValues: { ':n': MAX_VERSIONS - 1 },
        }),
      );
      const attempt = () =>
        invoke('POST', `/api/prompts/${id}/new-version`, { token: t.owner, body: { versionNote: 'v' }, ip: nextIp() });
      const stored = async () =>
        (await invoke('GET', `/api/prompts/${id}`, { token: t.owner, ip: nextIp() })).json.result
          .versionCount as number;
      return { free: 1, attempt, stored, limit: MAX_VERSIONS };
    },
  },
  {
    name: 'knowledge bases of a tenant (maxKnowledgeBases)',
    code: 'PLAN_LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const create = () =>
        invoke('POST', '/api/knowledge/bases', { token: t.owner, body: { name: `KB ${tag()}` }, ip: nextIp() });
      const stored = async () =>
        (await invoke('GET', '/api/knowledge/bases', { token: t.owner, ip: nextIp() })).json.result
          .totalCount as number;
      // ownTenant's plan allows one base: the burst races for that one slot.
      return { free: 1, attempt: create, stored, limit: 1 };
    },
  },
  {
    name: "the month's model tokens of a tenant (maxTokensPerMonth), reserved by parallel gateway calls",
    code: 'TOKEN_LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const messages = [{ role: 'user', content: 'a sentence long enough to be cut at three tokens' }];
      // Cut at max_tokens, each call uses exactly what it reserved: the allowance fits one call.
      const worst = (await promptTokens([{ role: 'user', content: messages[0]!.content }])) + 3;
      const set = await invoke('PUT', `/api/tenants/${t.slug}`, {
        token: t.admin,
        body: { maxTokensPerMonth: worst },
        ip: nextIp(),
      });
      expect(set).toAnswer(200);
      const attempt = async () => {
        const res = await invoke('POST', '/api/llm-gateway/v1/chat/completions', {
          token: t.owner,
          body: { model: 'local-chat', messages, max_tokens: 3 },
          ip: nextIp(),
        });
        // The /v1 wire says insufficient_quota; the platform code is TOKEN_LIMIT_REACHED.
        return res.status >= 400 ? { ...res, json: { error: { code: errorCode(res) } } } : res;
      };
      const stored = async () =>
        (await invoke('GET', '/api/llm-gateway/usage', { token: t.owner, ip: nextIp() })).json.result
          .tokensUsed as number;
      return { free: 1, attempt, stored, limit: worst };
    },
  },
  // Calendars and outbound webhook subscriptions: 20 per tenant, counted in the create's transaction.
  ...(
    [
      ['calendars of a tenant (20)', 'CALENDAR_LIMIT_REACHED', CALENDARS, () => CALENDAR_BODY],
      [
        'outbound webhook subscriptions of a tenant (20)',
        'SUBSCRIPTION_LIMIT_REACHED',
        '/api/webhook-subscriptions',
        () => ({ url: `https://hooks-${tag()}.example.com/in`, eventTypes: ['message.created'], description: null }),
      ],
    ] as const
  ).map(([name, code, path, body]) => ({
    name,
    code,
    scenario: async () => {
      const t = await ownTenant();
      const create = () =>
        invoke('POST', path, { token: t.owner, body: { ...body(), name: `N ${tag()}` }, ip: nextIp() });
      // Filled to two short of the cap: the burst races for the last two.
      for (let i = 0; i < 18; i++) expect((await create()).status).toBe(201);
      const stored = async () =>
        (await invoke('GET', path, { token: t.owner, ip: nextIp() })).json.result.totalCount as number;
      return { free: 2, attempt: create, stored, limit: 20 };
    },
  })),
  // AI agents: agent slots (maxAgents) on the tenant item.
  {
    name: 'agents of a tenant (maxAgents)',
    code: 'PLAN_LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const promptId = await newPrompt(t.owner);
      const create = () =>
        invoke('POST', AGENTS, { token: t.owner, body: { name: `Agent ${tag()}`, promptId }, ip: nextIp() });
      const stored = async () =>
        (await invoke('GET', AGENTS, { token: t.owner, ip: nextIp() })).json.result.totalCount as number;
      // ownTenant's plan allows one agent: the burst races for that one slot.
      return { free: 1, attempt: create, stored, limit: 1 };
    },
  },
  {
    name: 'widgets of a tenant (maxWidgetIntegrations)',
    code: 'PLAN_LIMIT_REACHED',
    scenario: async () => {
      const t = await ownTenant();
      const promptId = await newPrompt(t.owner);
      const agent = await invoke('POST', AGENTS, { token: t.owner, body: { name: 'W', promptId }, ip: nextIp() });
      const path = `${AGENTS}/${agent.json.result.id}/widgets`;
      const create = () =>
        invoke('POST', path, {
          token: t.owner,
          body: { name: `W ${tag()}`, allowedOrigins: ['https://a.example.com'] },
          ip: nextIp(),
        });
      const stored = async () =>
        ((await invoke('GET', path, { token: t.owner, ip: nextIp() })).json.result as unknown[]).length;
      // ownTenant is on the Starter plan: one widget.
      return { free: 1, attempt: create, stored, limit: 1 };
    },
  },
];

describe('every count limit holds under 20 parallel requests', () => {
  it('has a scenario for every limit code the code answers', () => {
    const files = execFileSync('git', ['ls-files', 'areas', 'functions', 'shared'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts'));
    const codes = new Set<string>();
    for (const f of files)
      for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(/'([A-Z_]*LIMIT_REACHED)'/g)) codes.add(m[1]!);
    // Visitor caps are bounded, not exact, by design (docs/decisions/conversations.md, "Visitor
    // caps"): ai-visitor-caps.test.ts checks each one and that the tenant's allowance is untouched.
    const bounded = new Set(['WIDGET_LIMIT_REACHED']);
    expect([...codes].filter((c) => !bounded.has(c) && !LIMITS.some((l) => l.code === c))).toEqual([]);
  });

  for (const limit of LIMITS) {
    it(limit.name, async () => {
      const s = await limit.scenario();
      const answers = await Promise.all(Array.from({ length: PARALLEL }, s.attempt));
      const passed = answers.filter((a) => a.status < 300);
      expect(passed, answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join('\n')).toHaveLength(s.free);
      for (const refused of answers.filter((a) => a.status >= 300)) {
        expect(refused.status, refused.text).toBeGreaterThanOrEqual(400);
        expect(refused.status, refused.text).toBeLessThan(500);
      }
      expect(await s.stored()).toBe(s.limit);
      // Refusals in the burst may be a concurrent write winning first; once full, the limit says so.
      const after = await s.attempt();
      expect(after.json?.error?.code, after.text).toBe(limit.code);
      expect(await s.stored()).toBe(s.limit);
    });
  }
});
