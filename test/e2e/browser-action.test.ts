import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { adminMadeTenant, api } from '#test/support/e2e.ts';
import { type AsOwner, approvedPrompt } from '#test/support/e2e-agents.ts';
import { startEchoSite, type EchoSite } from '#test/support/echo-site.ts';

/**
 * Browser Action against the local server as a client drives it: a tenant's tool (allowed host
 * `localhost`), approved and activated by a SystemAdmin, called by the local model from the
 * playground; the server runs the browser function in process on real Chromium, under the local
 * run's LOCAL_ALLOW_LOOPBACK_TARGETS=1, against a form served on a loopback port.
 */
let site: EchoSite;
let as: AsOwner;
let admin: string;
let tenantId: string;
let agentId: string;

const BROWSER = BUILT_IN_TOOLS.find((b) => b.code === 'browser_action')!.id;
const origin = () => `http://localhost:${site.port}`;

async function activeTool(displayName: string, configParams: Record<string, unknown>) {
  const tool = await as('POST', '/api/tools', { displayName, baseToolId: BROWSER, configParams });
  expect(tool).toAnswer(201);
  const id = tool.json.result.id as string;
  for (const move of ['approve', 'activate'])
    expect((await api('PUT', `/api/tools/${id}/${move}?tenantId=${tenantId}`, { token: admin })).status).toBe(200);
  return id;
}

async function agentWith(toolId: string) {
  const agent = await as('POST', '/api/ai/agents', {
    name: 'Shop helper',
    promptId: await approvedPrompt(as, 'Browser', 'You are {{agent_name}}.'),
    toolIds: [toolId],
  });
  expect(agent).toAnswer(201);
  return agent.json.result.id as string;
}

const chat = async (content: string) => {
  const res = await as('POST', `/api/ai/agents/${agentId}/chat`, { messages: [{ role: 'user', content }] });
  expect(res).toAnswer(200);
  return res.json.result.toolCalls[0] as { name: string; status: string; result: string };
};

beforeAll(async () => {
  site = await startEchoSite();
  const t = await adminMadeTenant({ slugPrefix: 'browser', planType: 2, maxAgents: 2, maxKnowledgeBases: 1 });
  ({ admin, tenantId } = t);
  as = (method, path, body) => api(method, path, { token: t.owner, body });
  agentId = await agentWith(
    // Unattended, so the call reaches the browser (approval: ai-approvals.test.ts).
    await activeTool('Browse Site', {
      requiresApproval: false,
      allowedHosts: ['localhost'],
      maxSteps: 6,
      timeoutSeconds: 20,
    }),
  );
}, 120_000);
afterAll(() => site.close());

describe('Browser Action through the local server', () => {
  it('an agent fills and submits a form and reads the echo', async () => {
    const steps = [
      { action: 'navigate', url: `${origin()}/form` },
      { action: 'fill', selector: '#name', value: 'Katherine Johnson' },
      { action: 'select', selector: '#colour', value: 'Blue' },
      { action: 'click', text: 'Send order' },
      { action: 'read', selector: '#echo' },
    ];
    const call = await chat(`browse_site ${JSON.stringify({ steps })}`);
    expect(call).toMatchObject({ name: 'browse_site', status: 'ok' });
    expect(call.result).toEqual(expect.stringMatching(/Received order from Katherine Johnson in blue/));
    expect(call.result).toEqual(expect.stringMatching(/"content":"untrusted-web-page"/));
    expect(site.hits).toContain('POST /echo');
  });

  it('a screenshot is a short-lived link to a PNG in the local S3 stand-in', async () => {
    const call = await chat(
      `browse_site ${JSON.stringify({ steps: [{ action: 'navigate', url: `${origin()}/form` }, { action: 'screenshot' }] })}`,
    );
    expect(call.status).toBe('ok');
    const link = /"screenshotUrl":"([^"]+)"/.exec(call.result)?.[1];
    expect(link).toEqual(expect.stringMatching(/browser-shots\/.*X-Amz-Expires=600/));
    const png = await fetch(link!);
    expect(png.status).toBe(200);
    expect(
      Buffer.from(await png.arrayBuffer())
        .subarray(0, 4)
        .toString('hex'),
    ).toBe('89504e47');
  });

  it('a sub-request outside the allowed hosts (a private address) is refused and the page still loads', async () => {
    const steps = [{ action: 'navigate', url: `${origin()}/private-subrequest` }, { action: 'read' }];
    const call = await chat(`browse_site ${JSON.stringify({ steps })}`);
    expect(call.status).toBe('ok');
    expect(call.result).toEqual(
      expect.stringMatching(
        /"target":"http:\/\/10\.0\.0\.7\/pixel\.png","reason":"The host 10\.0\.0\.7 is not allowed/,
      ),
    );
  });

  it('more steps than maxSteps run nothing; the visitor-facing turn still answers 200', async () => {
    const steps = Array.from({ length: 7 }, () => ({ action: 'read' }));
    const call = await chat(`browse_site ${JSON.stringify({ steps })}`);
    expect(call).toMatchObject({
      status: 'error',
      result: expect.stringMatching(/At most 6 steps per call; 7 were given/),
    });
  });
});
