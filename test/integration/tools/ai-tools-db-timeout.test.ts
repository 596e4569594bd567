import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { AGENTS, newPrompt } from '#test/support/agents.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { startPostgresThread } from '#test/support/postgres-thread.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A Db Query tool whose statement runs past the tool's timeoutSeconds: the call is stopped, the
 * model gets an error result, and the playground turn still answers 200. Everything through the
 * API, against a real PostgreSQL (PGlite in a thread of its own, see test/support/postgres-thread.ts).
 */
// PGlite listens on loopback: the local run's switch lets the database tools reach it.
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
afterAll(() => {
  vi.unstubAllEnvs();
});
let pg: Awaited<ReturnType<typeof startPostgresThread>>;
let agents: ReturnType<typeof caller>;
let agentId: string;

beforeAll(async () => {
  pg = await startPostgresThread(
    54341,
    "CREATE TABLE orders (id int primary key, item text); INSERT INTO orders VALUES (1, 'lamp');",
  );
  const t = await newTenant({ planType: 2, maxAgents: 5 });
  const owner = await tokenFor({ tenantId: t });
  const tools = caller('/api/tools', owner);
  const admin = caller('/api/tools', await tokenFor({ role: 'SystemAdmin' }));
  agents = caller(AGENTS, owner);
  const created = await tools.post('', {
    displayName: 'Query Orders',
    baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'db_query')!.id,
    configParams: { timeoutSeconds: 1 },
  });
  expect(created).toAnswer(201);
  const toolId = created.json.result.id as string;
  expect(await tools.put(`/${toolId}/config`, { schema: { connectionString: pg.url } })).toAnswer(200);
  expect(await admin.put(`/${toolId}/approve`)).toAnswer(200);
  expect(await admin.put(`/${toolId}/activate`)).toAnswer(200);
  const agent = await agents.post('', { name: 'Orders helper', promptId: await newPrompt(owner), toolIds: [toolId] });
  expect(agent).toAnswer(201);
  agentId = agent.json.result.id;
}, 60_000);
afterAll(async () => {
  await pg?.stop();
});

const chat = async (content: string) => {
  const res = await agents.post(`/${agentId}/chat`, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result as {
    message: string;
    toolCalls: { name: string; status: string; result: string; durationMs: number }[];
  };
};

describe('Db Query past its timeoutSeconds', () => {
  it('answers within the bound: the model gets an error result and the turn answers (no 500)', async () => {
    const fast = await chat('query_orders {"sql":"SELECT item FROM orders WHERE id = 1"}');
    expect(fast.toolCalls[0]).toMatchObject({ name: 'query_orders', status: 'ok' });
    expect(fast.message).toContain('lamp');

    const started = Date.now();
    const slow = await chat('query_orders {"sql":"SELECT pg_sleep(4)"}');
    const took = Date.now() - started;
    expect(slow.toolCalls).toHaveLength(1);
    expect(slow.toolCalls[0]).toMatchObject({ name: 'query_orders', status: 'error' });
    expect(slow.toolCalls[0]?.result).toMatch(/did not finish within 1 s/);
    expect(slow.message).toMatch(
      /^The tool query_orders returned: .*"result":"Error: The query did not finish within 1 s/s,
    );
    // Stopped at the bound (1 s, plus at most 1 s to drop the connection), not after the 4 s statement.
    expect(took).toBeLessThan(3500);
    expect(slow.toolCalls[0]?.durationMs).toBeGreaterThanOrEqual(900);
  });
});
