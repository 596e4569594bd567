import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#lib/bundling.ts';
import { config } from '#shared/platform/config.ts';
import { API_GROUPS, type GroupSpec } from '#shared/routes/groups.ts';
import { childEnv } from './cold-init.ts';
import { OUT_DIR } from './functions.ts';
import { clientClassName, median, ratio } from './stats.ts';

/**
 * The cold first answer: a fresh Node process imports a bundle and answers one request, an API
 * Gateway HTTP API (payload 2.0) event passed to its handler as Lambda passes it; the time is from
 * the process's start (its time origin) to the handler's answer. The function's side fetches its
 * signing keys from SSM (local/ssm-stand-in.ts), verifies the token and reads DynamoDB Local, as it
 * does on its first request on Lambda. The floor is the common hand-built function beside it.
 */
const RUNNER = `import { readFileSync, writeSync } from 'node:fs';
const [file, eventFile] = process.argv.slice(1);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const mod = await import(file);
const imported = performance.now();
const context = {
  functionName: 'bench', awsRequestId: crypto.randomUUID(), callbackWaitsForEmptyEventLoop: true,
  functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
  memoryLimitInMB: '1024', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {},
};
const res = await mod.handler(event, context);
const answered = performance.now();
const cpu = process.cpuUsage();
writeSync(3, JSON.stringify({ importedMs: imported, answeredMs: answered, cpuMs: (cpu.user + cpu.system) / 1000, status: res?.statusCode ?? 200, body: String(res?.body ?? '').slice(0, 300) }));
process.exit(0);`;

/** What the floor's handler reads after verifying the token: the function's own first DynamoDB read, replayed. */
export interface FloorRead {
  command: 'GetCommand' | 'QueryCommand';
  input: unknown;
}

export interface AnswerTiming {
  /** Process start to module imported. */
  importedMs: number;
  /** Process start to the handler's answer: the figure. */
  answeredMs: number;
  /** CPU time (user + system) of the process until the answer: steadier when the machine is busy. */
  cpuMs: number;
  status: number;
  body: string;
}

export interface ColdAnswer {
  runs: number;
  /** Median ms from process start to the answer (function, floor). */
  answerMs: number;
  floorAnswerMs: number;
  /** The target: the median of the per-round ratios (function over the floor run beside it). */
  ratio: number;
  /** Median ms from process start to imported, and the first answer after it (information). */
  importedMs: number;
  floorImportedMs: number;
  firstCallMs: number;
  floorFirstCallMs: number;
  /** Median CPU ms until the answer, and the median of the rounds' CPU ratios (information). */
  cpuMs: number;
  floorCpuMs: number;
  cpuRatio: number;
}

/** SDK client packages a hand-written function with this group's grants imports at top level, beyond DynamoDB and SSM. */
export function floorClientPackages(spec: GroupSpec): string[] {
  const packages: string[] = [];
  if (spec.sends?.length) packages.push('@aws-sdk/client-sqs');
  if (spec.media || spec.invoices) packages.push('@aws-sdk/client-s3');
  if (spec.knowledgeVectors) packages.push('@aws-sdk/client-s3vectors');
  if (spec.bedrock) packages.push('@aws-sdk/client-bedrock-runtime');
  return packages;
}

export const floorClientsOf = (group: string) =>
  floorClientPackages((API_GROUPS as Record<string, GroupSpec>)[group] ?? { description: '', table: 'none' });

/**
 * Source of the answer floor: the function as commonly written by hand. Every SDK client it uses
 * imported and constructed at top level (DynamoDB with the document client, SSM for the token's
 * public keys, the group's other clients), jose imported at top level; the handler fetches the keys
 * once, verifies the bearer token, makes the function's own first read and answers it as JSON.
 */
export function answerFloorSource(others: readonly { pkg: string; className: string }[]): string {
  return `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
${others.map((c, i) => `import { ${c.className} as Other${i} } from '${c.pkg}';`).join('\n')}
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const ssm = new SSMClient({});
export const others = [${others.map((_, i) => `new Other${i}({})`).join(', ')}];
const read = JSON.parse(process.env.BENCH_FLOOR_READ ?? 'null');
const json = (statusCode, body) => ({ statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
let keys;
async function loadKeys() {
  const out = await ssm.send(new GetParameterCommand({ Name: process.env.BENCH_JWKS_PARAMETER, WithDecryption: false }));
  const byKid = new Map();
  for (const jwk of JSON.parse(out.Parameter.Value).keys) byKid.set(jwk.kid, await importJWK(jwk, 'ES256'));
  return byKid;
}

export const handler = async (event) => {
  const token = (event.headers?.authorization ?? '').replace(/^Bearer /, '');
  let claims = {};
  if (token) try {
    keys ??= loadKeys();
    const key = (await keys).get(decodeProtectedHeader(token).kid);
    ({ payload: claims } = await jwtVerify(token, key, {
      algorithms: ['ES256'], issuer: process.env.JWT_ISSUER, audience: process.env.JWT_AUDIENCE,
    }));
  } catch {
    return json(401, { success: false, error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } });
  }
  if (!read) return json(200, { success: true, result: { sub: claims.sub } });
  const out = await ddb.send(read.command === 'QueryCommand' ? new QueryCommand(read.input) : new GetCommand(read.input));
  return json(200, { success: true, result: (read.command === 'QueryCommand' ? out.Items : out.Item) ?? null });
};
`;
}

export interface AnswerFloor {
  key: string;
  outfile: string;
  bytes: number;
}

const classNames = new Map<string, string>();
async function classNameOf(pkg: string): Promise<string> {
  if (!classNames.has(pkg)) {
    const mod = (await import(pkg)) as Record<string, unknown>;
    const name = clientClassName(Object.keys(mod).filter((k) => typeof mod[k] === 'function'));
    if (!name) throw new Error(`No client class found in ${pkg}`);
    classNames.set(pkg, name);
  }
  return classNames.get(pkg)!;
}

const floors = new Map<string, Promise<AnswerFloor>>();

/**
 * The answer floor for a set of further clients, built with the CDK's esbuild options and nothing
 * beside the bundle (a hand-written function's NodejsFunction bundles every package it imports).
 */
export function answerFloorFor(packages: readonly string[]): Promise<AnswerFloor> {
  const key = ['dynamodb', 'ssm', ...packages.map((p) => p.replace('@aws-sdk/client-', ''))].join('+');
  if (!floors.has(key)) {
    floors.set(
      key,
      (async () => {
        const dir = join(OUT_DIR, `answer-floor-${key}`);
        await mkdir(dir, { recursive: true });
        const entry = join(dir, 'entry.mjs');
        const others = await Promise.all(packages.map(async (pkg) => ({ pkg, className: await classNameOf(pkg) })));
        await writeFile(entry, answerFloorSource(others));
        const outfile = join(dir, 'index.mjs');
        const result = await build({
          ...esbuildOptionsFor(entry),
          external: [],
          outfile,
          metafile: true,
          write: true,
          logLevel: 'error',
        });
        const bytes = Object.values(result.metafile!.outputs).reduce((sum, o) => sum + o.bytes, 0);
        return { key, outfile, bytes };
      })(),
    );
  }
  return floors.get(key)!;
}

/** One fresh process: imports `file`, hands it the event in `eventFile`, reports the answer's timing. */
export function answerOnce(
  file: string,
  eventFile: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: readonly string[] = [],
): Promise<AnswerTiming> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeArgs, '--input-type=module', '-e', RUNNER, pathToFileURL(file).href, eventFile],
      { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
    );
    let report = '';
    let stderr = '';
    // Output is read and dropped: Lambda sends it down a pipe too (the function's access log).
    child.stdout!.resume();
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      report += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 || !report) return reject(new Error(`${file} exited ${code}: ${stderr.slice(0, 1000)}`));
      resolve(JSON.parse(report) as AnswerTiming);
    });
  });
}

export interface AnswerSide {
  file: string;
  eventFile: string;
  env: NodeJS.ProcessEnv;
  /** Extra Node flags (`--cpu-prof`: where a function's cold answer goes). */
  nodeArgs?: readonly string[];
}

const checked = (t: AnswerTiming, what: string) => {
  if (t.status !== 200) throw new Error(`${what} answered ${t.status}: ${t.body}`);
  return t;
};

/**
 * Function and floor in rounds of one fresh process each (order flipped every round), after one
 * discarded round (the file cache); the ratio is the median of the rounds' ratios, so the
 * machine's drift over the run, shared within a round, cancels.
 */
export async function measureColdAnswer(fn: AnswerSide, floor: AnswerSide, runs: number): Promise<ColdAnswer> {
  const once = async (side: AnswerSide, what: string) =>
    checked(await answerOnce(side.file, side.eventFile, side.env, side.nodeArgs), what);
  await once(fn, 'function');
  await once(floor, 'floor');
  const f: AnswerTiming[] = [];
  const fl: AnswerTiming[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      f.push(await once(fn, 'function'));
      fl.push(await once(floor, 'floor'));
    } else {
      fl.push(await once(floor, 'floor'));
      f.push(await once(fn, 'function'));
    }
  }
  return {
    runs,
    answerMs: median(f.map((t) => t.answeredMs)),
    floorAnswerMs: median(fl.map((t) => t.answeredMs)),
    ratio: median(f.map((t, i) => ratio(t.answeredMs, fl[i]!.answeredMs))),
    importedMs: median(f.map((t) => t.importedMs)),
    floorImportedMs: median(fl.map((t) => t.importedMs)),
    firstCallMs: median(f.map((t) => t.answeredMs - t.importedMs)),
    floorFirstCallMs: median(fl.map((t) => t.answeredMs - t.importedMs)),
    cpuMs: median(f.map((t) => t.cpuMs)),
    floorCpuMs: median(fl.map((t) => t.cpuMs)),
    cpuRatio: median(f.map((t, i) => ratio(t.cpuMs, fl[i]!.cpuMs))),
  };
}

/** The environment both sides start with: Lambda's (region, credentials), DynamoDB Local, the SSM stand-in. */
export function answerEnv(settings: {
  dynamoEndpoint: string;
  ssmEndpoint: string;
  jwksParameter: string;
  floorRead: FloorRead | null;
}): NodeJS.ProcessEnv {
  return {
    ...childEnv(),
    AWS_ENDPOINT_URL_DYNAMODB: settings.dynamoEndpoint,
    AWS_ENDPOINT_URL_SSM: settings.ssmEndpoint,
    TABLE_NAME: config.tableName,
    JWT_ISSUER: config.issuer,
    JWT_AUDIENCE: config.audience,
    BENCH_JWKS_PARAMETER: settings.jwksParameter,
    BENCH_FLOOR_READ: JSON.stringify(settings.floorRead),
  };
}

export async function writeEvent(name: string, event: unknown): Promise<string> {
  const file = join(OUT_DIR, name, 'cold-event.json');
  await mkdir(join(OUT_DIR, name), { recursive: true });
  await writeFile(file, JSON.stringify(event));
  return file;
}
