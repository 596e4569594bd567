import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routesOf } from '#test/support/queue-routes.ts';
import { handler as authHandler } from '#functions/auth/index.ts';
import { lambdaContext, toApiGatewayEvent } from '#local/apigw-event.ts';
import { createRouteMatcher } from '#shared/http/route-matcher.ts';
import { MAX_RECEIVE_COUNT } from '#shared/queue/redrive.ts';
import { queueWorker } from '#shared/queue/worker.ts';
import { authRoutes } from '#areas/identity/routes/auth.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { defineRoutes } from '#shared/routes/types.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';
import { countMetric } from '#shared/runtime/metrics.ts';

// The other test files keep metrics off (test/support/env-setup.ts); this one reads them.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const ddbMock = mockClient(DynamoDBDocumentClient);
let stdout: string[];

beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().resolves({});
  stdout = [];
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => {
    if (String(chunk).includes('"_aws"')) {
      stdout.push(String(chunk));
      return true;
    }
    return write(chunk as string, ...(rest as []));
  });
});
afterEach(() => vi.restoreAllMocks());

/** The EMF lines written so far, reduced to what an operator reads: metric, dimensions, value. */
function emitted() {
  return stdout
    .flatMap((chunk) => chunk.trim().split('\n'))
    .map((line) => {
      const emf = JSON.parse(line);
      const [directive] = emf._aws.CloudWatchMetrics;
      expect(directive.Metrics).toHaveLength(1);
      const { Name: name, Unit: unit } = directive.Metrics[0];
      const dimensions = Object.fromEntries((directive.Dimensions[0] as string[]).map((d) => [d, emf[d]]));
      return { namespace: directive.Namespace, name, unit, dimensions, value: emf[name] };
    });
}

async function invoke(
  routes: readonly RouteDef[],
  fn: ReturnType<typeof apiHandler>,
  method: string,
  path: string,
  body?: unknown,
) {
  const found = createRouteMatcher(routes)(method, path);
  const event = toApiGatewayEvent(
    {
      method,
      path,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      sourceIp: '10.0.0.9',
    },
    found.kind === 'route' ? found : null,
  );
  return fn(event, lambdaContext('unit'));
}

describe('business metrics of a route', () => {
  const routes = defineRoutes([
    {
      id: 'limited',
      method: 'GET',
      path: '/limited',
      group: 'system',
      auth: { kind: 'none' },
      scope: { kind: 'public' },
      summary: '',
      status: 200,
      rateLimit: { name: 'unit-rule', limit: 1, windowSeconds: 60 },
    },
    {
      id: 'counts',
      method: 'GET',
      path: '/counts',
      group: 'system',
      auth: { kind: 'none' },
      scope: { kind: 'public' },
      summary: '',
      status: 200,
    },
    {
      id: 'quiet',
      method: 'GET',
      path: '/quiet',
      group: 'system',
      auth: { kind: 'none' },
      scope: { kind: 'public' },
      summary: '',
      status: 200,
    },
  ]);
  const handler = apiHandler(routes, {
    limited: async () => null,
    counts: async () => {
      countMetric('Registration', 'password');
      countMetric('Registration', 'password');
      countMetric('Registration', 'identity-provider-a');
      throw new Error('fails after counting');
    },
    quiet: async () => null,
  });

  it('counts a rate-limit refusal by rule, once the 429 is answered', async () => {
    ddbMock.on(UpdateCommand).resolves({ Attributes: { hits: 2 } });
    const res = await invoke(routes, handler, 'GET', '/limited');
    expect(res.statusCode).toBe(429);
    expect(emitted()).toEqual([
      {
        namespace: 'saas/local',
        name: 'RateLimitRefused',
        unit: 'Count',
        dimensions: { service: 'saas', rule: 'unit-rule' },
        value: 1,
      },
    ]);
  });

  it('sums counts per metric and dimension value into one line each, also when the handler fails', async () => {
    const res = await invoke(routes, handler, 'GET', '/counts');
    expect(res.statusCode).toBe(500);
    expect(emitted().map(({ name, dimensions, value }) => ({ name, source: dimensions.source, value }))).toEqual([
      { name: 'Registration', source: 'password', value: 2 },
      { name: 'Registration', source: 'identity-provider-a', value: 1 },
    ]);
  });

  it('writes nothing for a request that counts nothing', async () => {
    expect((await invoke(routes, handler, 'GET', '/quiet')).statusCode).toBe(200);
    expect((await invoke(routes, handler, 'GET', '/limited')).statusCode).toBe(200);
    expect(emitted()).toEqual([]);
  });

  it('auth.login: a wrong password is a refused sign-in with its reason', async () => {
    ddbMock.on(UpdateCommand).resolves({ Attributes: { hits: 1 } });
    ddbMock.on(GetCommand).resolves({});
    const res = await invoke(authRoutes, authHandler, 'POST', '/api/auth/login', {
      email: 'nobody@example.com',
      password: 'Wrong-Pass-1',
    });
    expect(res.statusCode).toBe(401);
    expect(emitted()).toEqual([
      {
        namespace: 'saas/local',
        name: 'SignInRefused',
        unit: 'Count',
        dimensions: { service: 'saas', reason: 'INVALID_CREDENTIALS' },
        value: 1,
      },
    ]);
  });
});

describe('business metrics of a queue worker', () => {
  const record = (id: string, type: string, receiveCount: number) =>
    ({
      messageId: id,
      body: JSON.stringify({ id, type, payload: {} }),
      attributes: { ApproximateReceiveCount: String(receiveCount) },
    }) as unknown as SQSRecord;

  it('counts processed, retried and parked (last receive) messages per queue, one line per outcome', async () => {
    const worker = queueWorker(
      'email',
      routesOf({
        ok: async () => undefined,
        broken: async () => {
          throw new Error('provider down');
        },
      }),
    );
    const event: SQSEvent = {
      Records: [
        record('m1', 'ok', 1),
        record('m2', 'ok', 2),
        record('m3', 'broken', 1),
        record('m4', 'broken', MAX_RECEIVE_COUNT),
      ],
    };
    const out = await worker(event);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['m3', 'm4']);
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(4);
    expect(ddbMock.commandCalls(DeleteCommand)).toHaveLength(2);
    expect(emitted().map(({ name, dimensions, value }) => ({ name, queue: dimensions.queue, value }))).toEqual([
      { name: 'MessageProcessed', queue: 'email', value: 2 },
      { name: 'MessageRetried', queue: 'email', value: 1 },
      { name: 'MessageParked', queue: 'email', value: 1 },
    ]);
  });
});
