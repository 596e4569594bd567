import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { issueAccessToken } from '#shared/auth/access-token.ts';
import { SYSTEM_ROLE_PERMISSIONS } from '#shared/auth/permissions.ts';
import { newSession } from '#areas/identity/refresh-tokens.ts';
import type { BenchRequest, Harness } from './harness.ts';
import { prepare } from './harness.ts';
import { scenarioContext } from './reads.ts';
import { seedRequests } from './scenarios.ts';
import type { WarmScenario } from './warm.ts';

export interface WriteScenario {
  group: string;
  routeId: string;
  scenario: WarmScenario;
  /** What the figure includes beyond the handler's DynamoDB work, when anything. */
  note?: string;
}

const UNIQUE_FIELDS = ['name', 'title', 'displayName', 'code'];

/** The seed body with its naming fields made unique (creates refuse duplicate names). */
function uniqueBody(body: unknown, n: number): unknown {
  if (!body || typeof body !== 'object') return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of UNIQUE_FIELDS) if (typeof out[k] === 'string') out[k] = `${out[k]} ${n}`;
  if (typeof out.email === 'string') out.email = out.email.replace('@', `+${n}@`);
  if (typeof out.domain === 'string') out.domain = `w${n}-${out.domain}`;
  return out;
}

/**
 * A client of its own for setup writes: the functions' client is recorded (its calls would join
 * the bare replay) and is swapped for a stand-in during the stack-only pass.
 */
const setupClient = () =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
      region: process.env.AWS_REGION ?? 'us-east-1',
    }),
  );

/** A stored session of the bench owner, made outside the timed part. */
async function ownerSession(h: Harness, client: DynamoDBDocumentClient) {
  const session = newSession({ id: h.ownerId, tenantId: h.tenantId }, false);
  await client.send(new TransactWriteCommand({ TransactItems: session.items }));
  const { accessToken } = await issueAccessToken({
    userId: h.ownerId,
    tenantId: h.tenantId,
    roles: ['TenantOwner'],
    permissions: [...SYSTEM_ROLE_PERMISSIONS.TenantOwner],
    email: 'owner@bench.example',
  });
  return { accessToken, refreshToken: session.refreshToken };
}

/**
 * One write route per group that has a create among the seeds (a fresh name each call), and the
 * auth group's refresh (a chain: each call presents the pair the previous one returned) and
 * logout (a fresh stored session per call, made outside the timed part). Sign-in is left out:
 * scrypt dominates it and it has its own measure.
 */
export async function writeScenarios(h: Harness): Promise<WriteScenario[]> {
  const out: WriteScenario[] = [];
  const seen = new Set<string>();
  for (const seed of seedRequests(scenarioContext(h))) {
    if (typeof seed === 'function') continue;
    const route = prepare(seed).route;
    if (!route || seen.has(route.group)) continue;
    seen.add(route.group);
    let n = 0;
    const make = (): BenchRequest => ({
      token: seed.headers?.['x-internal-api-key'] ? undefined : h.ownerToken,
      ...seed,
      body: uniqueBody(seed.body, ++n),
    });
    out.push({
      group: route.group,
      routeId: route.id,
      scenario: { next: make, write: true },
      ...(route.group === 'vault'
        ? {
            note: 'includes the write to the parameter store (a local stand-in), which the bare replay does not repeat',
          }
        : {}),
    });
  }
  const client = setupClient();
  let pair = await ownerSession(h, client);
  out.push({
    group: 'auth',
    routeId: 'auth.refresh',
    scenario: {
      next: () => ({ method: 'POST', path: '/api/auth/refresh-token', token: pair.accessToken, body: pair }),
      after: (_, json) => {
        const { result } = json as { result: typeof pair };
        pair = { accessToken: result.accessToken, refreshToken: result.refreshToken };
      },
      write: true,
    },
  });
  out.push({
    group: 'auth',
    routeId: 'auth.logout',
    scenario: {
      next: async () => {
        const s = await ownerSession(h, client);
        return {
          method: 'POST',
          path: '/api/auth/logout',
          token: s.accessToken,
          body: { refreshToken: s.refreshToken },
        };
      },
      write: true,
    },
  });
  return out;
}
