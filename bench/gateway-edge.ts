import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchGetItemCommand, GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { keys } from '#shared/data/keys.ts';
import { localClient } from '#local/dynamodb-local.ts';
import { spawnLocalServer } from '#local/spawn-server.ts';
import { config } from '#shared/platform/config.ts';
import { ROOT } from './functions.ts';
import { median } from './stats.ts';

/**
 * The gateway at the HTTP edge, as an OpenAI client feels it: the same chat completion sent to an
 * OpenAI-compatible stand-in upstream directly, through this gateway's local server (`npm start`,
 * a separate process, a gateway key, a catalog model pointing at the upstream), and through Portkey's
 * open-source gateway on the same upstream when it is installed. Requests one at a time over
 * keep-alive connections, in interleaved rounds (each round: every target in turn, `perRound` times),
 * the median of each round's median; plain (the whole answer) and streamed (the first body bytes).
 * Beside them in each round, the floor of the gateway's guarantees: one consistent GetItem on the
 * server's own DynamoDB Local, from this process (a limit exact on the next call needs one fresh read),
 * and the read the gateway sends, one consistent BatchGetItem of two items (its key and its tenant).
 * Report only: what is timed depends on the machine's load; nothing here fails a run.
 */
const ROUNDS = Number(process.env.BENCH_EDGE_ROUNDS ?? 7);
const PER_ROUND = Number(process.env.BENCH_EDGE_PER_ROUND ?? 25);
const WARMUP = 20;
const PORTKEY = join(ROOT, 'node_modules/@portkey-ai/gateway/build/start-server.js');

/** The upstream: an OpenAI chat completion, plain or as three chunks, answered at once. */
function startUpstream(): Promise<Server> {
  const completion = JSON.stringify({
    id: 'chatcmpl-upstream',
    object: 'chat.completion',
    created: 0,
    model: 'edge-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  });
  const chunk = (delta: object, finish: string | null = null, usage?: object) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 0, model: 'edge-model', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  const streamed =
    chunk({ role: 'assistant', content: '' }) +
    chunk({ content: 'Hello' }) +
    chunk({ content: ' there.' }) +
    chunk({}, 'stop') +
    chunk({}, null, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 }) +
    'data: [DONE]\n\n';
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const stream = body.includes('"stream":true');
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      res.end(stream ? streamed : completion);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** One consistent read on the server's table, timed (an item that need not exist: the read is the cost). */
async function timedRead(client: DynamoDBClient): Promise<number> {
  const start = performance.now();
  await client.send(
    new GetItemCommand({
      TableName: config.tableName,
      Key: marshall(keys.platformItem('TENANT', 'bench-floor-read')),
      ConsistentRead: true,
    }),
  );
  return performance.now() - start;
}

/** The gateway's own read, timed: one consistent BatchGetItem of two items (a key and a tenant). */
async function timedBatchRead(client: DynamoDBClient): Promise<number> {
  const start = performance.now();
  await client.send(
    new BatchGetItemCommand({
      RequestItems: {
        [config.tableName]: {
          Keys: [
            keys.platformItem('TENANT', 'bench-floor-read'),
            keys.tenantItem('bench-floor', 'GATEWAY_KEY', 'k'),
          ].map((k) => marshall(k)),
          ConsistentRead: true,
        },
      },
    }),
  );
  return performance.now() - start;
}

/** Keep-alive, one connection a host: requests one at a time, as the measurement sent them. */
let agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request: ms to the first body bytes and to the end, and the status. */
function timedRequest(
  t: Target,
  body: string,
): Promise<{ first: number; total: number; status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let first = 0;
    let text = '';
    const req = request(
      t.url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...t.headers } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          first ||= performance.now() - start;
          text += c;
        });
        res.on('end', () => resolve({ first, total: performance.now() - start, status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject).end(body);
  });
}

async function startPortkey(upstream: string): Promise<{ child: ChildProcess; target: Target } | null> {
  if (!existsSync(PORTKEY)) return null;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [PORTKEY, `--port=${port}`, '--headless'], { stdio: 'ignore' });
  const target: Target = {
    name: 'portkey',
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { authorization: 'Bearer sk-edge', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream },
  };
  for (let i = 0; i < 100; i++) {
    const ok = await timedRequest(
      target,
      JSON.stringify({ model: 'edge-model', messages: [{ role: 'user', content: 'hi' }] }),
    )
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return { child, target };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  return null;
}

async function json(base: string, method: string, path: string, token: string | null, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The local server's tenant, gateway key and catalog model pointing at the upstream. */
async function prepareGateway(base: string, upstream: string, admin: { email: string; password: string }) {
  const login = await json(base, 'POST', '/api/auth/login', null, admin);
  const token = login.result.accessToken as string;
  const slug = `edge-${crypto.randomUUID().slice(0, 8)}`;
  const tenant = await json(base, 'POST', '/api/tenants', token, {
    slug,
    name: 'Edge bench',
    email: `o@${slug}.example.com`,
    planType: 3,
    maxAgents: 1,
    maxKnowledgeBases: 1,
    maxSeats: 5,
  });
  await json(base, 'PUT', `/api/llm-gateway/models/${crypto.randomUUID()}`, token, {
    name: 'edge-model',
    provider: 'openai-compatible',
    providerModel: 'edge-model',
    kind: 'chat',
    inputPricePerMillion: 1,
    outputPricePerMillion: 2,
    contextWindow: 128_000,
    baseUrl: upstream,
  });
  const key = await json(base, 'POST', '/api/llm-gateway/keys', token, {
    name: 'edge bench',
    tenantId: tenant.result.id,
    rpmLimit: 1_000_000,
    tpmLimit: 100_000_000,
    maxBudgetUsd: 1_000,
  });
  return key.result.key as string;
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

export type GatewayEdgeBench = Awaited<ReturnType<typeof measureGatewayEdge>>;

export async function measureGatewayEdge(log: (line: string) => void = () => undefined) {
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const upstreamServer = await startUpstream();
  const upstream = `http://127.0.0.1:${(upstreamServer.address() as AddressInfo).port}/v1`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-edge-'));
  const admin = { email: 'edge-admin@example.com', password: `Edge-${crypto.randomUUID()}` };
  const server = spawnLocalServer({
    LOCAL_DATA_DIR: dataDir,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOCAL_MODEL_WORD_DELAY_MS: '0',
    LOG_LEVEL: 'WARN',
  });
  let portkey: Awaited<ReturnType<typeof startPortkey>> = null;
  let dynamo: DynamoDBClient | null = null;
  try {
    const base = await server.ready;
    log(`local server at ${base}; upstream at ${upstream}`);
    const secret = await prepareGateway(base, upstream, admin);
    const dynamoEndpoint = /DynamoDB Local at (http:\/\/\S+)/.exec(server.logs().stdout)?.[1];
    if (!dynamoEndpoint) throw new Error('the local server did not print its DynamoDB Local endpoint');
    dynamo = localClient(dynamoEndpoint);
    for (let i = 0; i < WARMUP; i++) await timedRead(dynamo);
    for (let i = 0; i < WARMUP; i++) await timedBatchRead(dynamo);
    portkey = await startPortkey(upstream);
    log(portkey ? 'Portkey gateway started' : 'Portkey gateway not installed: skipped');
    const targets: Target[] = [
      { name: 'upstream', url: `${upstream}/chat/completions`, headers: {} },
      {
        name: 'gateway',
        url: `${base}/api/llm-gateway/v1/chat/completions`,
        headers: { authorization: `Bearer ${secret}` },
      },
      ...(portkey ? [portkey.target] : []),
    ];
    const ask = {
      model: 'edge-model',
      messages: [{ role: 'user', content: 'How long does this take?' }],
      max_tokens: 64,
    };
    const bodies = {
      plain: JSON.stringify(ask),
      stream: JSON.stringify({ ...ask, stream: true, stream_options: { include_usage: true } }),
    };
    const failures: Record<string, string> = {};
    for (const t of targets)
      for (const mode of ['plain', 'stream'] as const)
        for (let i = 0; i < WARMUP; i++) {
          const r = await timedRequest(t, bodies[mode]);
          const ok = r.status === 200 && !/"error"/.test(r.text);
          if (!ok) failures[`${t.name} ${mode}`] ??= `${r.status} ${r.text.slice(0, 200)}`;
        }
    const rounds: Record<string, { plain: number[]; first: number[] }> = {};
    for (const t of targets) rounds[t.name] = { plain: [], first: [] };
    const floorRounds: number[] = [];
    const batchRounds: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const reads: number[] = [];
      const batchReads: number[] = [];
      for (let i = 0; i < PER_ROUND; i++) reads.push(await timedRead(dynamo));
      for (let i = 0; i < PER_ROUND; i++) batchReads.push(await timedBatchRead(dynamo));
      floorRounds.push(median(reads));
      batchRounds.push(median(batchReads));
      for (const t of targets) {
        const plain: number[] = [];
        const first: number[] = [];
        for (let i = 0; i < PER_ROUND; i++) plain.push((await timedRequest(t, bodies.plain)).total);
        if (!failures[`${t.name} stream`])
          for (let i = 0; i < PER_ROUND; i++) first.push((await timedRequest(t, bodies.stream)).first);
        rounds[t.name]!.plain.push(median(plain));
        if (first.length) rounds[t.name]!.first.push(median(first));
      }
    }
    const of = (name: string) => {
      const r = rounds[name];
      if (!r) return null;
      return {
        plainMs: r3(median(r.plain)),
        firstChunkMs: r.first.length ? r3(median(r.first)) : null,
      };
    };
    const up = of('upstream')!;
    const added = (name: string) => {
      const t = of(name);
      if (!t) return null;
      return {
        plainMs: r3(t.plainMs - up.plainMs),
        firstChunkMs: t.firstChunkMs === null || up.firstChunkMs === null ? null : r3(t.firstChunkMs - up.firstChunkMs),
      };
    };
    return {
      generatedAt: new Date().toISOString(),
      rounds: ROUNDS,
      perRound: PER_ROUND,
      upstream: up,
      gateway: of('gateway'),
      peer: of('portkey'),
      addedMs: { gateway: added('gateway'), peer: added('portkey') },
      /** One consistent GetItem on the server's DynamoDB Local (median of round medians). */
      floorReadMs: r3(median(floorRounds)),
      /** The gateway's own read: one consistent BatchGetItem of two items (median of round medians). */
      floorBatchReadMs: r3(median(batchRounds)),
      failures,
    };
  } finally {
    portkey?.child.kill();
    dynamo?.destroy();
    agent.destroy();
    upstreamServer.closeAllConnections();
    upstreamServer.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
