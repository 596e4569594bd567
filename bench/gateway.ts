import './env.ts';
import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { lambdaContext } from '#local/apigw-event.ts';
import { LOCAL_MODEL_IDS, getModel, seedCatalog } from '#areas/ai/gateway/catalog.ts';
import { chat } from '#areas/ai/gateway/chat.ts';
import { keys } from '#shared/data/keys.ts';
import { get } from '#shared/data/read.ts';
import { localModel } from '#areas/ai/gateway/providers/local-model.ts';
import type { ProviderRequest } from '#areas/ai/gateway/providers/port.ts';
import { print, prepare, putTenant, startHarness, invoke } from './harness.ts';
import { median, percentile } from './stats.ts';

/**
 * `npm run bench:gateway`: the LLM gateway's own cost per call (issue 27). The same chat request to
 * the local model, warm, in one process, on DynamoDB Local: called directly on the provider, through
 * `chat()` (what agents use), and through the /v1 route's handler (what an OpenAI client reaches);
 * and the time to the first streamed byte, provider alone versus the streaming front door. The
 * difference is what the gateway adds: key lookup, catalog, rpm/tpm, the reservations, the settle,
 * and the usage and analytics records (each a DynamoDB round trip on DynamoDB Local).
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

async function main() {
  const h = await startHarness();
  try {
    await seedCatalog();
    await putTenant(h.tenantId);
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
    const body = { model: 'local-chat', messages, max_tokens: 64 };
    const route = prepare({
      method: 'POST',
      path: '/api/llm-gateway/v1/chat/completions',
      headers: { authorization: `Bearer ${secret}` },
      body,
    });
    const { handler, streamHandler } = await import('#functions/llm-gateway/index.ts');
    const viaRoute = await timed(async () => {
      const res = await handler(route.event(), lambdaContext('llm-gateway'));
      if (res.statusCode !== 200) throw new Error(`route answered ${res.statusCode}: ${res.body}`);
    });

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

    const results = {
      generatedAt: new Date().toISOString(),
      iterations: ITERATIONS,
      providerDirect: stat(direct),
      chatInProcess: stat(viaChat),
      v1Route: stat(viaRoute),
      overheadMs: {
        chatInProcess: round(median(viaChat) - median(direct)),
        v1Route: round(median(viaRoute) - median(direct)),
      },
      dynamoDbRequestsPerChatCall: round(ddbPerCall),
      bareDynamoDbGetItem: stat(bareGet),
      firstByte: {
        providerDirect: stat(directFirst),
        frontDoorFirstWrite: stat(frontDoorFirst),
        addedByGatewayMs: round(median(frontDoorFirst) - median(directFirst)),
      },
    };
    print(JSON.stringify(results, null, 2));
    await writeFile(new URL('./gateway-results.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await h.stop();
  }
}

await main();
