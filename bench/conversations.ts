import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { runTurn } from '#areas/agents/runtime.ts';
import { publishedAgent } from '#areas/agents/published.ts';
import { readConversation } from '#areas/conversations/store.ts';
import { LOCAL_MODEL_IDS, seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { invoke, type Harness } from './harness.ts';
import { median, percentile } from './stats.ts';

/**
 * The conversations phase of `npm run bench` (alone: `npm run bench:conversations`): what a widget message costs beyond the agent's turn. The
 * same visitor message, warm, in one process, on DynamoDB Local: the agent turn alone (`runTurn`:
 * prompt and tools, retrieval, the model through the gateway) and the widget route (session check,
 * agent check, visitor message stored, the turn, the answer stored). The difference, and the
 * DynamoDB requests each adds, is the conversation's own cost per message.
 */
const ITERATIONS = Number(process.env.BENCH_CONVERSATION_ITERATIONS ?? 100);
const WARMUP = 10;
/** Messages per conversation before a new session: a conversation's item grows to its recent-turns cap. */
const PER_CONVERSATION = 20;
const ORIGIN = 'https://bench.example.com';

const round = (v: number) => Math.round(v * 1000) / 1000;
const stat = (xs: number[]) => ({ medianMs: round(median(xs)), p90Ms: round(percentile(xs, 90)) });

export async function agentWidget(h: Harness) {
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.platformItem('TENANT', h.tenantId),
        id: h.tenantId,
        planType: 2,
        maxAgents: 5,
        maxWidgetIntegrations: 5,
        aiAgentsEnabled: true,
      },
    }),
  );
  const call = async (method: string, path: string, body?: unknown, expected = 200) => {
    const res = await invoke({ method, path, token: h.ownerToken, body });
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json?.result;
  };
  const prompt = await call(
    'POST',
    '/api/prompts',
    { title: 'Bench', content: 'You are {{agent_name}}.', modelId: LOCAL_MODEL_IDS.chat },
    201,
  );
  const pv = `/api/prompts/${prompt.id}/versions/${prompt.versions[0].id}`;
  await call('PUT', `${pv}/review`, undefined, 204);
  await call('PUT', `${pv}/approve`, undefined, 204);
  const agent = await call('POST', '/api/ai/agents', { name: 'Bench agent', promptId: prompt.id }, 201);
  await call('POST', `/api/ai/agents/${agent.id}/publish`);
  const widget = await call(
    'POST',
    `/api/ai/agents/${agent.id}/widgets`,
    { name: 'Bench', allowedOrigins: [ORIGIN] },
    201,
  );
  return { agentId: agent.id as string, widgetKey: widget.widgetKey as string };
}

let ip = 0;
const nextIp = () => `198.51.${(++ip >> 8) & 255}.${ip & 255}`;

export type ConversationBench = Awaited<ReturnType<typeof measureConversations>>;

/** Needs the harness's tenant and owner; seeds the local model catalog. */
export async function measureConversations(h: Harness) {
  await seedCatalog();
  const { agentId, widgetKey } = await agentWidget(h);
  const newSession = async () => {
    const res = await invoke({
      method: 'POST',
      path: '/api/conversations/widget/sessions',
      headers: { origin: ORIGIN },
      body: { widgetKey },
      ip: nextIp(),
    });
    if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.result as { sessionToken: string; conversationId: string };
  };
  const text = 'What are your opening hours on weekdays?';

  // The agent turn alone, on the same conversation so far (one visitor message).
  const agent = await publishedAgent(h.tenantId, agentId);
  const turn = () =>
    runTurn({
      tenantId: h.tenantId,
      agent,
      messages: [{ role: 'user', content: text }],
      caller: { kind: 'agent', agentId },
      requestId: crypto.randomUUID(),
    });
  const timedTurn = async () => {
    h.recorder.reset();
    const t = performance.now();
    await turn();
    return { ms: performance.now() - t, requests: h.recorder.requests.length };
  };

  // The widget route: session, message stored, turn, answer stored. A new session every
  // PER_CONVERSATION messages is not part of a message's cost: made before the clock starts.
  let session = await newSession();
  let sent = 0;
  const message = async () => {
    if (sent++ % PER_CONVERSATION === 0) session = await newSession();
    h.recorder.reset();
    const t = performance.now();
    const res = await invoke({
      method: 'POST',
      path: '/api/conversations/widget/messages',
      headers: { 'x-widget-session': session.sessionToken, 'idempotency-key': `m-${sent}` },
      body: { text },
      ip: nextIp(),
    });
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`message: ${res.status} ${JSON.stringify(res.json)}`);
    return { ms, requests: h.recorder.requests.length };
  };
  // The playground: the same message to the agent's draft through its route.
  const playground = async () => {
    h.recorder.reset();
    const t = performance.now();
    const res = await invoke({
      method: 'POST',
      path: `/api/ai/agents/${agentId}/chat`,
      token: h.ownerToken,
      body: { messages: [{ role: 'user', content: text }] },
    });
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`playground: ${res.status} ${JSON.stringify(res.json)}`);
    return { ms, requests: h.recorder.requests.length };
  };
  // The three alternate, so a machine busy with something else slows them alike.
  for (let i = 0; i < WARMUP; i++) {
    await timedTurn();
    await message();
    await playground();
  }
  const turnMs: number[] = [];
  const routeMs: number[] = [];
  const playgroundMs: number[] = [];
  let turnRequests = 0;
  let routeRequests = 0;
  let playgroundRequests = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const a = await timedTurn();
    const b = await message();
    const c = await playground();
    turnMs.push(a.ms);
    turnRequests += a.requests;
    routeMs.push(b.ms);
    routeRequests += b.requests;
    playgroundMs.push(c.ms);
    playgroundRequests += c.requests;
  }
  // The requests a turn makes before its first model call: counted where the local model is called.
  let beforeModel = -1;
  const modelChat = localModel.chat;
  localModel.chat = (req) => {
    if (beforeModel < 0) beforeModel = h.recorder.requests.length;
    return modelChat(req);
  };
  try {
    h.recorder.reset();
    await turn();
  } finally {
    localModel.chat = modelChat;
  }
  const last = await readConversation(h.tenantId, session.conversationId);

  const results = {
    generatedAt: new Date().toISOString(),
    iterations: ITERATIONS,
    agentTurn: stat(turnMs),
    widgetMessageRoute: stat(routeMs),
    overheadMs: round(median(routeMs) - median(turnMs)),
    playgroundRoute: stat(playgroundMs),
    playgroundOverheadMs: round(median(playgroundMs) - median(turnMs)),
    dynamoDbRequests: {
      perAgentTurn: round(turnRequests / ITERATIONS),
      perWidgetMessage: round(routeRequests / ITERATIONS),
      addedByConversation: round((routeRequests - turnRequests) / ITERATIONS),
      perPlaygroundTurn: round(playgroundRequests / ITERATIONS),
      beforeModelCall: beforeModel,
    },
    lastConversationMessages: last.messageCount,
  };
  return results;
}
