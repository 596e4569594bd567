import { writeFile } from 'node:fs/promises';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { loadGroupHandler } from '#local/group-handler.ts';
import { ensureTable, startDynamoDbLocal, type RunningDynamo } from '#local/dynamodb-local.ts';
import { memoryParameterStore, recordingMailer, recordingQueue } from '#local/memory-ports.ts';
import { issueAccessToken } from '#shared/auth/access-token.ts';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { generateSigningKeyParams, resetKeyCache, signingParams } from '#shared/auth/signing-keys.ts';
import { keys } from '#shared/data/keys.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { mailer, parameterStore, queueSender, type ParameterStore } from '#shared/platform/ports.ts';
import { routes } from '#local/routes.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { DdbRecorder } from './ddb-counter.ts';
import { bootstrapIdentity } from './scenarios.ts';

export type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Handler output (access logs) goes to a sink while the bench runs handlers; the bench prints through `print`. */
const realWrite = process.stdout.write.bind(process.stdout);
let sunk = 0;
export const print = (text: string) => realWrite(`${text}\n`);
export function sinkStdout() {
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    sunk += typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
}
export const restoreStdout = () => {
  process.stdout.write = realWrite as typeof process.stdout.write;
  return sunk;
};

export interface Harness {
  dynamo: RunningDynamo;
  recorder: DdbRecorder;
  /** Parameter-store reads since start (the signing keys must be read once, not per request). */
  paramReads: () => number;
  tenantId: string;
  /** The owner's user id (its token names it). */
  ownerId: string;
  ownerToken: string;
  /** SystemAdmin acting on the same tenant (its token names it), for admin-only routes. */
  adminToken: string;
  /** The owner's sign-in, when the owner is a stored user. */
  owner: { email: string; password: string } | null;
  /** How the tenant and owner were made. */
  identityNote: string;
  stop(): Promise<void>;
}

export async function tokenFor(
  tenantId: string | null,
  role: 'TenantOwner' | 'SystemAdmin',
  user?: { id: string; email: string },
) {
  const { accessToken } = await issueAccessToken({
    userId: user?.id ?? crypto.randomUUID(),
    tenantId,
    roles: [role],
    permissions: [...SYSTEM_ROLE_PERMISSIONS[role]],
    email: user?.email ?? `${role.toLowerCase()}@bench.example`,
  });
  return accessToken;
}

/** Creates a tenant record minimal enough for existence checks. */
export async function putTenant(tenantId: string) {
  await ddb().send(
    new PutCommand({ TableName: config.tableName, Item: { ...keys.platformItem('TENANT', tenantId), id: tenantId } }),
  );
}

/** DynamoDB Local with a fresh table, memory ports with a fresh signing key, a counted client, a tenant. */
export async function startHarness(): Promise<Harness> {
  const dynamo = await startDynamoDbLocal();
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  // A client made for an earlier harness (`bench:gateway` runs two) points at its stopped server.
  ddb.install(undefined);
  await ensureTable(dynamo.endpoint, config.tableName);
  const keyParams = await generateSigningKeyParams();
  const names = signingParams();
  const store = memoryParameterStore({
    [names.publicJwks]: keyParams.publicJwks,
    [names.privateJwk]: keyParams.privateJwk,
  });
  let reads = 0;
  const counted: ParameterStore = {
    get: (name, opts) => {
      reads++;
      return store.get(name, opts);
    },
    put: (name, value, opts) => store.put(name, value, opts),
    delete: (name) => store.delete(name),
    listByPath: (path, opts) => {
      reads++;
      return store.listByPath(path, opts);
    },
  };
  resetKeyCache();
  parameterStore.install(counted);
  queueSender.install(recordingQueue());
  mailer.install(recordingMailer());
  const recorder = new DdbRecorder().install(ddb());
  const identity = await bootstrapIdentity();
  return {
    dynamo,
    recorder,
    paramReads: () => reads,
    ...identity,
    stop: () => dynamo.stop(),
  };
}

const match = createRouteMatcher(routes);

export interface BenchRequest {
  method: string;
  /** Path with an optional `?query`. */
  path: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Source IP (rate limits count per IP). */
  ip?: string;
}

export interface Prepared {
  group: string;
  route: RouteDef | null;
  event: () => APIGatewayProxyEventV2;
}

/** The event API Gateway would send for the request, and the function that receives it. */
export function prepare(req: BenchRequest): Prepared {
  const [path, rawQuery = ''] = req.path.split('?') as [string, string?];
  const headers: Record<string, string> = { 'user-agent': 'bench', ...req.headers };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const found = match(req.method, path);
  const matched = found.kind === 'route' ? found : null;
  return {
    group: matched ? matched.route.group : 'fallback',
    route: matched?.route ?? null,
    event: () =>
      toApiGatewayEvent(
        { method: req.method, path, rawQuery, headers, body, sourceIp: req.ip ?? '198.51.100.7' },
        matched,
      ),
  };
}

const handlers = new Map<string, Promise<Handler>>();

export function handlerOf(group: string): Promise<Handler> {
  if (!handlers.has(group)) {
    handlers.set(group, loadGroupHandler(group) as Promise<Handler>);
  }
  return handlers.get(group)!;
}

export interface Invoked {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: scenarios read any route's answer by path; the tests check its shape
  json: any;
}

export async function invoke(req: BenchRequest): Promise<Invoked> {
  const p = prepare(req);
  const res = await (await handlerOf(p.group))(p.event(), lambdaContext(p.group));
  let json: unknown;
  try {
    json = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 200, json };
}

/**
 * One phase of `npm run bench` alone (`npm run bench:<phase>`): a fresh harness, handler output
 * sunk, the phase's figures printed and written to `bench/<name>-results.json`.
 */
export async function runPhaseAlone(name: string, measure: (h: Harness) => Promise<unknown>) {
  sinkStdout();
  const h = await startHarness();
  try {
    const results = await measure(h);
    print(JSON.stringify(results, null, 2));
    await writeFile(new URL(`./${name}-results.json`, import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    await h.stop();
    restoreStdout();
  }
}
