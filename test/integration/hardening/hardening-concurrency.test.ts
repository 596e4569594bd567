import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '#test/support/queue-routes.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { queueWorker } from '#shared/queue/worker.ts';
import { routeById } from '#test/support/fuzz/route-matrix.ts';
import { createTenant, createWorld, nextIp, seedUser, type Tenant, type World } from '#test/support/fuzz/world.ts';
import { invoke, type InvokeResult } from '#test/support/invoke.ts';

/**
 * Parallel creates of one unique value give exactly one success, parallel
 * counter updates end exact, and a message delivered many times in parallel is applied once.
 */
const N = 10;
let world: World;

beforeAll(async () => {
  world = await createWorld();
});

const parallel = (n: number, f: (i: number) => Promise<InvokeResult>) =>
  Promise.all(Array.from({ length: n }, (_, i) => f(i)));
const statuses = (rs: InvokeResult[]) => rs.map((r) => r.status).sort();
const tag = () => crypto.randomUUID().slice(0, 8);

/** A renamed or removed route fails its race test instead of silently leaving the suite. */
const withRoute = (id: string) =>
  routeById(id)
    ? it
    : (name: string) => it(name, () => expect.fail(`route ${id} is not in the route table: update this race test`));

describe('one unique value created in parallel: exactly one success', () => {
  withRoute('products.create')('product code within a tenant', async () => {
    const code = `CODE-${tag()}`;
    const rs = await parallel(N, (i) =>
      invoke('POST', '/api/product-services', {
        token: world.a.owner,
        body: { name: `P ${i}`, code, tenantId: world.a.id },
      }),
    );
    expect(statuses(rs)).toEqual([201, ...Array(N - 1).fill(409)]);
    for (const r of rs.filter((r) => r.status === 409)) expect(r.json.error.code).toBe('CONFLICT');
    const list = await invoke('GET', '/api/product-services', {
      token: world.a.owner,
      query: { search: code, pageSize: 100 },
    });
    expect(list.json.result.totalCount).toBe(1);
  });

  withRoute('roles.create')('role name within a tenant (any letter case)', async () => {
    const name = `Auditors ${tag()}`;
    const rs = await parallel(N, (i) =>
      invoke('POST', '/api/roles', {
        token: world.a.owner,
        body: { name: i % 2 ? name.toUpperCase() : name, tenantId: world.a.id },
      }),
    );
    expect(statuses(rs)).toEqual([201, ...Array(N - 1).fill(409)]);
    const roles = await invoke('GET', '/api/roles', { token: world.a.owner, query: { pageSize: 100 } });
    expect(
      roles.json.result.items.filter((r: { name: string }) => r.name.toLowerCase() === name.toLowerCase()),
    ).toHaveLength(1);
    expect(roles.json.result.totalCount).toBe(roles.json.result.items.length);
  });

  withRoute('groups.create')('group name within a tenant', async () => {
    const name = `Crew ${tag()}`;
    const rs = await parallel(N, () =>
      invoke('POST', '/api/groups', { token: world.a.owner, body: { name, tenantId: world.a.id } }),
    );
    expect(statuses(rs)).toEqual([201, ...Array(N - 1).fill(409)]);
    const groups = await invoke('GET', '/api/groups', { token: world.a.owner, query: { search: name, pageSize: 100 } });
    expect(groups.json.result.totalCount).toBe(1);
  });

  withRoute('tenants.create')('tenant slug across the platform', async () => {
    const slug = `race-${tag()}`;
    const rs = await parallel(N, (i) =>
      invoke('POST', '/api/tenants', {
        token: world.admin,
        body: {
          slug,
          name: `Race ${i}`,
          email: `race-${i}@example.com`,
          planType: 1,
          maxAgents: 1,
          maxKnowledgeBases: 1,
          maxSeats: 5,
        },
      }),
    );
    expect(statuses(rs)).toEqual([201, ...Array(N - 1).fill(409)]);
    const list = await invoke('GET', '/api/tenants', { token: world.admin, query: { search: slug } });
    expect(list.json.result.totalCount).toBe(1);
  });

  withRoute('auth.register')('e-mail registration', async () => {
    const email = `race-${tag()}@example.com`;
    const rs = await parallel(N, () =>
      invoke('POST', '/api/auth/register', {
        body: { email, password: 'Correct-Horse-9', firstName: 'Race', lastName: 'Condition' },
        ip: nextIp(),
      }),
    );
    expect(statuses(rs)).toEqual([201, ...Array(N - 1).fill(400)]);
    for (const r of rs.filter((r) => r.status === 400)) expect(r.json.error.code).toBe('DUPLICATE_EMAIL');
  });
});

describe('counters updated in parallel end exact', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await createTenant(world.admin, 'count');
  });

  withRoute('suppliers.create')('25 suppliers created at once: totalCount 25 and 25 listed', async () => {
    const rs = await parallel(25, (i) =>
      invoke('POST', '/api/suppliers', { token: t.owner, body: { name: `S ${i}`, tenantId: t.id } }),
    );
    expect(statuses(rs)).toEqual(Array(25).fill(201));
    const list = await invoke('GET', '/api/suppliers', { token: t.owner, query: { pageSize: 100 } });
    expect(list.json.result.totalCount).toBe(25);
    expect(list.json.result.items).toHaveLength(25);
  });

  withRoute('groups.addUser')('memberCount: 10 users added at once, then one user added 10 times at once', async () => {
    const group = await invoke('POST', '/api/groups', { token: t.owner, body: { name: `G ${tag()}`, tenantId: t.id } });
    const users = await Promise.all(Array.from({ length: N }, () => seedUser(t.id, ['TenantMember'])));
    const add = (userId: string) =>
      invoke('POST', `/api/groups/${group.json.result.id}/users`, { token: t.owner, query: { userId } });
    expect(statuses(await Promise.all(users.map((u) => add(u.id))))).toEqual(Array(N).fill(200));
    const again = await parallel(N, () => add(users[0]!.id));
    expect(statuses(again)).toEqual(Array(N).fill(200));
    const groups = await invoke('GET', '/api/groups', { token: t.owner, query: { pageSize: 100 } });
    expect(groups.json.result.items.find((g: { id: string }) => g.id === group.json.result.id).memberCount).toBe(N);
  });

  withRoute('departments.create')('childCount: 10 children created at once under one parent', async () => {
    const parent = await invoke('POST', '/api/departments', {
      token: t.owner,
      body: { name: `Parent ${tag()}`, tenantId: t.id },
    });
    const rs = await parallel(N, (i) =>
      invoke('POST', '/api/departments', {
        token: t.owner,
        body: { name: `Child ${i}`, tenantId: t.id, parentId: parent.json.result.id },
      }),
    );
    expect(statuses(rs)).toEqual(Array(N).fill(201));
    const list = await invoke('GET', '/api/departments', { token: t.owner, query: { pageSize: 100 } });
    const got = list.json.result.items.find((d: { id: string }) => d.id === parent.json.result.id);
    expect(got.childCount).toBe(N);
    const children = await invoke('GET', '/api/departments', {
      token: t.owner,
      query: { parentId: parent.json.result.id, pageSize: 100 },
    });
    expect(children.json.result.totalCount).toBe(N);
  });

  withRoute('users.update')('userCount: a custom role given to 10 users at once', async () => {
    const role = await invoke('POST', '/api/roles', {
      token: t.owner,
      body: { name: `Crew ${tag()}`, tenantId: t.id },
    });
    const users = await Promise.all(Array.from({ length: N }, () => seedUser(t.id, ['TenantMember'])));
    const rs = await Promise.all(
      users.map((u) =>
        invoke('PUT', `/api/users/${u.id}`, {
          token: t.owner,
          body: { firstName: 'Fuzz', lastName: 'User', roles: ['TenantMember', role.json.result.name], isActive: true },
        }),
      ),
    );
    expect(statuses(rs)).toEqual(Array(N).fill(200));
    const roles = await invoke('GET', '/api/roles', { token: t.owner, query: { pageSize: 100 } });
    const byName = Object.fromEntries(
      roles.json.result.items.map((r: { name: string; userCount: number }) => [r.name, r.userCount]),
    );
    expect(byName[role.json.result.name]).toBe(N);
  });
});

describe('a message delivered 10 times in parallel is applied once', () => {
  const counterKey = () => ({ pk: `HARDENING#COUNTER#${tag()}`, sk: 'ITEM' });
  const bump = (key: { pk: string; sk: string }) => async () => {
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: key,
        UpdateExpression: 'ADD hits :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  };
  const hits = async (key: { pk: string; sk: string }) =>
    Number(
      (await ddb().send(new GetCommand({ TableName: config.tableName, Key: key, ConsistentRead: true }))).Item?.hits ??
        0,
    );
  const event = (messageId: string, id = messageId): SQSEvent =>
    ({
      Records: [{ messageId, body: JSON.stringify({ type: 'event.apply', payload: {}, id }) }],
    }) as unknown as SQSEvent;

  it('the queue worker factory claims the message id before the work runs', async () => {
    const key = counterKey();
    const handler = queueWorker('hardening', routesOf({ 'event.apply': bump(key) }));
    const id = crypto.randomUUID();
    // Ten deliveries of one provider event (same de-duplication id, different SQS message ids).
    const outs = await Promise.all(Array.from({ length: N }, () => handler(event(crypto.randomUUID(), id))));
    expect(await hits(key)).toBe(1);
    const failed = outs.filter((o) => o.batchItemFailures.length).length;
    // The ones that found it in progress asked to be retried; redelivered now, they are skipped as done.
    const redelivered = await Promise.all(
      Array.from({ length: failed }, () => handler(event(crypto.randomUUID(), id))),
    );
    expect(redelivered.every((o) => o.batchItemFailures.length === 0)).toBe(true);
    expect(await hits(key)).toBe(1);
  });

  it('a failed attempt releases its claim, so the retry applies it (once)', async () => {
    const key = counterKey();
    let calls = 0;
    const handler = queueWorker(
      'hardening',
      routesOf({
        'event.apply': async () => {
          calls++;
          if (calls === 1) throw new Error('downstream unavailable');
          await bump(key)();
        },
      }),
    );
    const id = crypto.randomUUID();
    expect((await handler(event(id))).batchItemFailures).toEqual([{ itemIdentifier: id }]);
    expect(await hits(key)).toBe(0);
    const retries = await Promise.all(Array.from({ length: N }, () => handler(event(id))));
    expect(await hits(key)).toBe(1);
    expect(retries.filter((o) => o.batchItemFailures.length === 0).length).toBeGreaterThanOrEqual(1);
  });
});
