import { Writable } from 'node:stream';
import { lambdaContext } from '#local/apigw-event.ts';
import { LOCAL_MODEL_IDS, getModel, seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { chat } from '#areas/llm-gateway/chat.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { localModel } from '#areas/llm-gateway/providers/local-model.ts';
import type { ProviderRequest } from '#areas/llm-gateway/providers/port.ts';
import { prepare, putTenant, invoke, type Harness } from './harness.ts';
import { median, percentile } from './stats.ts';

/**
 * The gateway phase of `npm run bench` (alone: `npm run bench:gateway`): the LLM gateway's own cost per call. The same chat request to
 * the local model, warm, in one process, on DynamoDB Local: called directly on the provider, through
 * `chat()` (what agents use: the record awaited), and through the /v1 route's front door (what an
 * OpenAI client reaches: its answer ends before the record, which the invocation finishes after
 * it); and the time to the first streamed byte, provider alone versus the front door. The difference
 * is what the gateway adds: on a warm call one DynamoDB request before the model (the fresh read of
 * key and tenant; the limits are admitted from this instance's leases) and the record after (with
 * a lease's write now and then, when it runs out or is settled).
 */
const ITERATIONS = Number(process.env.BENCH_GATEWAY_ITERATIONS ?? 200);
const WARMUP = 20;

async function timed(fn: () => Promise<unknown>, n = ITERATIONS): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

const stat = (xs: number[]) => ({ medianMs: round(median(xs)), p90Ms: round(percentile(xs, 90)) });
const round = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Where a call's DynamoDB requests fall: counted at the moment the provider is called (the local
 * model's chat, wrapped for the count) and at the call's end, over `n` sequential calls.
 */
async function requestsAroundModel(h: Harness, run: () => Promise<unknown>, n = 50) {
  const provider = localModel as { chat: typeof localModel.chat };
  const real = provider.chat;
  let callStart = 0;
  let before = 0;
  provider.chat = (...args) => {
    before += h.recorder.requests.length - callStart;
    return real(...args);
  };
  try {
    const first = h.recorder.requests.length;
    for (let i = 0; i < n; i++) {
      callStart = h.recorder.requests.length;
      await run();
    }
    const total = h.recorder.requests.length - first;
    return { before: round(before / n), after: round((total - before) / n) };
  } finally {
    provider.chat = real;
  }
}

export type GatewayBench = Awaited<ReturnType<typeof measureGateway>>;

/** The targets: what the gateway adds to a call, and to its first streamed byte. */
export const GATEWAY_OVERHEAD_TARGET_MS = 2;
export const GATEWAY_FIRST_BYTE_TARGET_MS = 5;

export async function measureGateway(h: Harness) {
  await seedCatalog();
  if (!(await get(keys.platformItem('TENANT', h.tenantId)))) await putTenant(h.tenantId);
  const key = await invoke({
    method: 'POST',
    path: '/api/llm-gateway/keys',
    token: h.ownerToken,
    body: { name: 'bench' },
  });
  const secret = key.json.result.key as string;
  const model = (await getModel(LOCAL_MODEL_IDS.chat))!;
  const messages = [{ role: 'user' as const, content: 'How long does the gateway take to answer this?' }];
  const req: ProviderRequest = { model, messages, maxTokens: 64 };
  const call = () => ({
    tenantId: h.tenantId,
    caller: { kind: 'user' as const, userId: h.ownerId },
    requestId: crypto.randomUUID(),
    model: 'local-chat',
    messages,
    maxTokens: 64,
  });

  const direct = await timed(() => localModel.chat(req));
  h.recorder.reset();
  const viaChat = await timed(() => chat(call()));
  const ddbPerCall = h.recorder.requests.length / (ITERATIONS + WARMUP);
  const aroundModel = await requestsAroundModel(h, () => chat(call()));
  // The same through a key with every limit (rpm/tpm, budget and the allowance, all leased).
  const limited = await invoke({
    method: 'POST',
    path: '/api/llm-gateway/keys',
    token: h.ownerToken,
    body: { name: 'bench limited', rpmLimit: 100_000, tpmLimit: 100_000_000, maxBudgetUsd: 1000 },
  });
  const keyCaller = { kind: 'key' as const, keyId: limited.json.result.id as string };
  const aroundModelKeyed = await requestsAroundModel(h, () => chat({ ...call(), caller: keyCaller }));
  const body = { model: 'local-chat', messages, max_tokens: 64 };
  const route = prepare({
    method: 'POST',
    path: '/api/llm-gateway/v1/chat/completions',
    headers: { authorization: `Bearer ${secret}` },
    body,
  });
  const { streamHandler } = await import('#functions/llm-gateway/index.ts');
  // Through the front door the /v1 routes are served by: the answer is complete when the sink ends
  // (what the client waits for); the invocation goes on until the record is written.
  const answered: number[] = [];
  const invocation = await timed(async () => {
    const start = performance.now();
    let body = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        body += chunk;
        done();
      },
      final(done) {
        answered.push(performance.now() - start);
        done();
      },
    });
    await streamHandler(route.event(), sink, lambdaContext('llm-gateway-stream'));
    if (!body.includes('chat.completion')) throw new Error(`route answered ${body}`);
  });
  answered.splice(0, WARMUP);

  // Time to first streamed byte.
  const directFirst = await timed(async () => {
    const it = localModel.stream(req)[Symbol.asyncIterator]();
    await it.next();
    await it.return?.();
  });
  // One DynamoDB round trip on this DynamoDB Local, for scale: the gateway's cost is its round trips.
  const bareGet = await timed(() => get(keys.platformItem('TENANT', h.tenantId)));
  const streamRoute = prepare({
    method: 'POST',
    path: '/api/llm-gateway/v1/chat/completions',
    headers: { authorization: `Bearer ${secret}` },
    body: { ...body, stream: true },
  });
  const frontDoorFirst: number[] = [];
  await timed(async () => {
    const start = performance.now();
    let first = 0;
    const sink = new Writable({
      write(_chunk, _enc, done) {
        first ||= performance.now() - start;
        done();
      },
    });
    await streamHandler(streamRoute.event(), sink, lambdaContext('llm-gateway-stream'));
    frontDoorFirst.push(first);
  });
  frontDoorFirst.splice(0, WARMUP);

  return {
    generatedAt: new Date().toISOString(),
    iterations: ITERATIONS,
    providerDirect: stat(direct),
    chatInProcess: stat(viaChat),
    v1RouteAnswered: stat(answered),
    v1RouteInvocation: stat(invocation),
    overheadMs: {
      chatInProcess: round(median(viaChat) - median(direct)),
      v1RouteAnswered: round(median(answered) - median(direct)),
      v1RouteInvocation: round(median(invocation) - median(direct)),
    },
    dynamoDbRequestsPerChatCall: round(ddbPerCall),
    /** Of them, sent before the model is called (what every call waits for; the target is 1) and after it. */
    dynamoDbRequestsBeforeModel: aroundModel.before,
    dynamoDbRequestsAfterModel: aroundModel.after,
    /** The same for a key with rpm, tpm and a budget. */
    dynamoDbRequestsAroundModelForLimitedKey: aroundModelKeyed,
    bareDynamoDbGetItem: stat(bareGet),
    firstByte: {
      providerDirect: stat(directFirst),
      frontDoorFirstWrite: stat(frontDoorFirst),
      addedByGatewayMs: round(median(frontDoorFirst) - median(directFirst)),
    },
  };
}
