import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterBundlingFor, esbuildOptionsFor } from '#lib/bundling.ts';
import { toApiGatewayEvent } from '#local/apigw-event.ts';
import { routes } from '#local/routes.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { API_GROUPS } from '#shared/routes/groups.ts';
import { config, requiredSettings } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import { childEnv } from './cold-init.ts';
import { OUT_DIR, ROOT } from './functions.ts';
import { median } from './stats.ts';

/**
 * The webhook's cold answer: what a platform waits for when its message lands on a Lambda that is
 * starting. Each run is a fresh Node process that imports the connector function's bundle (built as
 * the CDK builds it) and answers one signed inbound webhook, timed from the process's start to the
 * 200. It runs as the function does deployed (`AWS_LAMBDA_FUNCTION_NAME` set, so its settings are
 * checked and nothing falls back to a local default): DynamoDB Local for the table, and for SSM (the
 * connection's signing secret) and SQS (the turn) a small stand-in speaking their JSON protocols, so
 * the process makes the same network calls with the same SDK clients. Lambda's own runtime start
 * (before Node) is not in the figure.
 */
const run = promisify(execFile);
const FUNCTION = 'connector';
const RESULT = 'BENCH_COLD_WEBHOOK ';

/** The child: nothing but Node, the bundle and the event (a TypeScript loader would be timed too). */
const RUNNER = `import { readFileSync } from 'node:fs';
const event = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const t0 = performance.now();
const { handler } = await import(process.argv[1]);
const t1 = performance.now();
const context = { functionName: 'connector', awsRequestId: crypto.randomUUID(), callbackWaitsForEmptyEventLoop: false,
  functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:connector',
  memoryLimitInMB: '1024', logGroupName: '/aws/lambda/connector', logStreamName: 'bench',
  getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} };
const res = await handler(event, context);
const t2 = performance.now();
process.stdout.write('\\n${RESULT}' + JSON.stringify({ status: res.statusCode, body: String(res.body ?? '').slice(0, 300), bootMs: t0, importMs: t1 - t0, answerMs: t2 - t1, totalMs: t2 }) + '\\n');
process.exit(0);`;

export interface ColdWebhookRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
}

interface ColdRun {
  bootMs: number;
  totalMs: number;
  importMs: number;
  answerMs: number;
}

export interface ColdWebhookRow {
  runs: number;
  /** From the process's start to the 200: the verdict figure. */
  medianMs: number;
  worstMs: number;
  /**
   * Medians of its parts: Node's own start until the import begins, importing the bundle, and the
   * handler's first answer (its DynamoDB connection, the connection record, the secret or keys, the claim, the queue).
   */
  bootMedianMs: number;
  importMedianMs: number;
  answerMedianMs: number;
}

/** The connector bundle as the CDK builds it (esbuild with the stack's options, lazy packages beside it). */
async function bundleConnector(): Promise<string> {
  const outfile = join(OUT_DIR, `${FUNCTION}-cold-webhook`, 'index.mjs');
  await build({
    ...esbuildOptionsFor(join(ROOT, 'functions', FUNCTION, 'index.ts'), FUNCTION),
    outdir: undefined,
    outfile,
    write: true,
    logLevel: 'error',
  });
  for (const command of afterBundlingFor(FUNCTION)(ROOT, dirname(outfile))) await run('sh', ['-c', command]);
  return outfile;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });

/**
 * SSM GetParameter (served from the bench's parameter store, where the connections' secrets were
 * put) and SQS SendMessage (counted, with the MD5 the SDK checks), as AWS answers them.
 */
function awsStandIn(): { server: Server; sent: () => number } {
  let sent = 0;
  const server = createServer(async (req, res) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const input = JSON.parse((await read(req)) || '{}') as Record<string, string>;
    const answer = (status: number, body: unknown, type = 'application/x-amz-json-1.1') => {
      res.writeHead(status, { 'content-type': type, 'x-amzn-requestid': crypto.randomUUID() });
      res.end(JSON.stringify(body));
    };
    if (target === 'AmazonSSM.GetParameter') {
      const found = await (await parameterStore()).get(input.Name!);
      if (!found) return answer(400, { __type: 'ParameterNotFound', message: 'Parameter not found' });
      return answer(200, {
        Parameter: { Name: input.Name, Type: 'SecureString', Value: found.value, Version: found.version },
      });
    }
    if (target === 'AmazonSQS.SendMessage') {
      sent++;
      const md5 = createHash('md5')
        .update(input.MessageBody ?? '')
        .digest('hex');
      return answer(200, { MessageId: crypto.randomUUID(), MD5OfMessageBody: md5 }, 'application/x-amz-json-1.0');
    }
    answer(400, { __type: 'UnknownOperationException', message: `bench stand-in: ${target}` });
  });
  return { server, sent: () => sent };
}

/** What the deployed function's environment holds (lib/access.ts sets these), pointed at the stand-ins. */
function functionEnv(aws: string, base: string): NodeJS.ProcessEnv {
  const settings: Record<string, string> = {
    APP_NAME: config.appName,
    STAGE: config.stage,
    JWT_ISSUER: config.issuer,
    JWT_AUDIENCE: config.audience,
    MAIL_FROM: config.mailFrom,
    PUBLIC_BASE_URL: base,
    TABLE_NAME: config.tableName,
    TURNS_QUEUE_URL: `${aws}/000000000000/turns`,
    CHANNELS_QUEUE_URL: `${aws}/000000000000/channels`,
  };
  const missing = requiredSettings(API_GROUPS[FUNCTION]).filter((n) => !(n in settings));
  if (missing.length) throw new Error(`cold webhook bench: no value for ${missing.join(', ')}`);
  return {
    ...childEnv(),
    ...settings,
    AWS_LAMBDA_FUNCTION_NAME: `bench-${FUNCTION}`,
    AWS_ENDPOINT_URL_DYNAMODB: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    AWS_ENDPOINT_URL_SSM: aws,
    AWS_ENDPOINT_URL_SQS: aws,
    LOG_LEVEL: 'INFO',
    NODE_OPTIONS: '',
  };
}

const match = createRouteMatcher(routes);
/** As API Gateway sends it: the route key and path parameters of the route it matched. */
const routeOf = (path: string) => {
  const found = match('POST', path);
  if (found.kind !== 'route') throw new Error(`cold webhook: no route for ${path}`);
  return found;
};

async function coldOnce(bundle: string, env: NodeJS.ProcessEnv, dir: string, req: ColdWebhookRequest) {
  const eventFile = join(dir, `${crypto.randomUUID()}.json`);
  const event = toApiGatewayEvent(
    {
      method: 'POST',
      path: req.path,
      headers: { 'content-type': 'application/json', ...req.headers },
      body: req.body,
      sourceIp: '198.51.100.7',
    },
    routeOf(req.path),
  );
  await writeFile(eventFile, JSON.stringify(event));
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', RUNNER, pathToFileURL(bundle).href, eventFile],
    { env, maxBuffer: 8 << 20 },
  );
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT));
  if (!line) throw new Error(`cold webhook: no result from the child: ${stdout.slice(-500)}`);
  const out = JSON.parse(line.slice(RESULT.length)) as ColdRun & { status: number; body: string };
  if (out.status !== 200) throw new Error(`cold webhook ${req.path}: answered ${out.status} ${out.body}`);
  return out;
}

/**
 * `runs` fresh processes per platform, the platforms in turn (round by round, so the machine's
 * drift over the phase falls on all alike), after one discarded run that warms the disk cache.
 */
export async function measureColdWebhooks(
  platforms: Record<string, () => Promise<ColdWebhookRequest>>,
  base: string,
  runs: number,
): Promise<{ runs: number; bundleKb: number; queued: number; platforms: Record<string, ColdWebhookRow> }> {
  const bundle = await bundleConnector();
  const { size } = await import('node:fs').then((fs) => fs.statSync(bundle));
  const aws = awsStandIn();
  await new Promise<void>((done) => aws.server.listen(0, '127.0.0.1', done));
  const awsUrl = `http://127.0.0.1:${(aws.server.address() as { port: number }).port}`;
  const env = functionEnv(awsUrl, base);
  const dir = await mkdtemp(join(tmpdir(), 'cold-webhook-'));
  const times: Record<string, ColdRun[]> = Object.fromEntries(Object.keys(platforms).map((p) => [p, []]));
  try {
    const first = Object.values(platforms)[0]!;
    await coldOnce(bundle, env, dir, await first());
    for (let i = 0; i < runs; i++)
      for (const [name, request] of Object.entries(platforms))
        times[name]!.push(await coldOnce(bundle, env, dir, await request()));
  } finally {
    await new Promise((done) => aws.server.close(done));
    await rm(dir, { recursive: true, force: true });
  }
  const r = (v: number) => Math.round(v * 10) / 10;
  return {
    runs,
    bundleKb: Math.round(size / 1024),
    queued: aws.sent(),
    platforms: Object.fromEntries(
      Object.entries(times).map(([name, t]) => [
        name,
        {
          runs: t.length,
          medianMs: r(median(t.map((x) => x.totalMs))),
          worstMs: r(Math.max(...t.map((x) => x.totalMs))),
          bootMedianMs: r(median(t.map((x) => x.bootMs))),
          importMedianMs: r(median(t.map((x) => x.importMs))),
          answerMedianMs: r(median(t.map((x) => x.answerMs))),
        },
      ]),
    ),
  };
}
