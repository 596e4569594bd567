import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS, CHAT_CHANNELS } from '#shared/reference/built-in-tools.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { listNewestFirst } from '#shared/data/collection.ts';

const T = '/api/tools';
let ctx: Awaited<ReturnType<typeof twoTenants>>;
const as = (token: string) => caller(T, token);
let owner: ReturnType<typeof as>;
let admin: ReturnType<typeof as>;

beforeAll(async () => {
  ctx = await twoTenants();
  owner = as(ctx.ownerA);
  admin = as(ctx.admin);
});

const base = (code: string) => BUILT_IN_TOOLS.find((b) => b.code === code)!.id;
const newTool = async (code = 'db_query', extra: Record<string, unknown> = {}) => {
  const res = await owner.post('', {
    displayName: `Tool ${crypto.randomUUID().slice(0, 6)}`,
    baseToolId: base(code),
    description: 'Reads orders',
    ...extra,
  });
  expect(res.status, res.text).toBe(201);
  return res.json.result as { id: string; status: string; displayName: string; configParams: Record<string, unknown> };
};
const auditActions = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items
    .map((a) => a.action)
    .sort();

describe('built-in tools', () => {
  it('lists the spec catalog with stable ids and a send-message tool for five chat channels', async () => {
    const res = await owner.get('/built-in?pageSize=100');
    expect(res.status).toBe(200);
    const names = res.json.result.items.map((i: { name: string }) => i.name);
    for (const n of ['Browser Action', 'Db Execute', 'Db Query', 'HTTP Request', 'Manage Schedule', 'Send Email'])
      expect(names).toContain(n);
    const chat = res.json.result.items.filter((i: { type: string }) => i.type === 'chat');
    expect(chat).toHaveLength(5);
    for (const channel of CHAT_CHANNELS)
      expect(chat.some((c: { name: string }) => c.name.includes(channel))).toBe(true);
    expect(res.json.result.totalCount).toBe(11);
    for (const i of res.json.result.items) expect(i.description.length).toBeGreaterThan(0);
    const page2 = await owner.get('/built-in?pageSize=5&page=3');
    expect(page2.json.result.items).toHaveLength(1);
  });

  it('select creates a PENDING tenant tool named after the built-in tool; an unknown base is 400', async () => {
    const res = await owner.post('/built-in/select', { baseToolId: base('send_email'), status: 'ACTIVE' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.result).toMatchObject({
      displayName: 'Send Email',
      baseToolId: base('send_email'),
      type: 'email',
      status: 'PENDING',
      configParams: { maxRows: 100, readOnly: true, timeoutSeconds: 30 },
    });
    expect((await owner.post('/built-in/select', { baseToolId: crypto.randomUUID() })).status).toBe(400);
    expect(await auditActions(res.json.result.id)).toEqual(['create']);
  });
});

describe('tenant tools', () => {
  it('create, update, config and params round-trip; limits are checked (400)', async () => {
    const t = await newTool('db_query', { configParams: { maxRows: 500 } });
    expect(t).toMatchObject({
      status: 'PENDING',
      configParams: { maxRows: 500, readOnly: true, timeoutSeconds: 30 },
      kbStatus: { hasChunks: false, chunkCount: 0 },
    });
    const cfg = await owner.put(`/${t.id}/config`, {
      schema: {
        databaseType: 'postgres',
        schemaName: 'public',
        tables: ['orders', 'customers'],
        connectionString: 'vault://prod/orders-db',
      },
    });
    expect(cfg.status, cfg.text).toBe(200);
    expect(cfg.json.result.schema).toEqual({
      databaseType: 'postgres',
      schemaName: 'public',
      tables: ['orders', 'customers'],
      connectionString: 'vault://prod/orders-db',
    });
    expect((await owner.get(`/${t.id}/config`)).json.result).toEqual(cfg.json.result);
    const params = await owner.put(`/${t.id}/config-params`, { maxRows: 10_000, timeoutSeconds: 300 });
    expect(params.json.result).toEqual({ maxRows: 10_000, readOnly: true, timeoutSeconds: 300 });
    expect((await owner.get(`/${t.id}/config-params`)).json.result).toEqual(params.json.result);
    for (const bad of [
      { maxRows: 0 },
      { maxRows: 10_001 },
      { timeoutSeconds: 0 },
      { timeoutSeconds: 301 },
      { maxRows: 1.5 },
      { readOnly: 'no' },
    ]) {
      expect((await owner.put(`/${t.id}/config-params`, bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const up = await owner.put(`/${t.id}`, { displayName: 'Orders reader', agentIds: [crypto.randomUUID()] });
    expect(up.json.result).toMatchObject({ displayName: 'Orders reader', configParams: { maxRows: 10_000 } });
    expect(await auditActions(t.id)).toEqual(['config', 'config-params', 'create', 'update']);
  });

  it('accepts a connection string only as a vault reference (400 otherwise, nothing stored)', async () => {
    const t = await newTool();
    for (const connectionString of [
      'postgres://user:secret@db:5432/app',
      'Server=db;Password=x',
      'vault://prod',
      'vault://Prod/key',
      'vault://prod/a/b',
      'vault://prod/..',
    ]) {
      const res = await owner.put(`/${t.id}/config`, { schema: { connectionString } });
      expect(res.status, connectionString).toBe(400);
      expect(res.text).not.toContain('secret@');
    }
    expect((await owner.get(`/${t.id}/config`)).json.result.schema.connectionString).toBeNull();
    expect(
      (await owner.put(`/${t.id}/config`, { schema: { connectionString: 'vault://staging-2/orders_db.url' } })).status,
    ).toBe(200);
  });

  it('moves along the approval table by SystemAdmin only; other moves are 409', async () => {
    const t = await newTool();
    const move = (who: ReturnType<typeof as>, action: string) => who.put(`/${t.id}/${action}`);
    expect((await move(owner, 'approve')).status).toBe(403);
    expect((await move(admin, 'activate')).status).toBe(409);
    const approved = await move(admin, 'approve');
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json.result.status).toBe('APPROVED');
    expect((await move(admin, 'approve')).status).toBe(409);
    expect((await move(admin, 'activate')).json.result.status).toBe('ACTIVE');
    for (const a of ['approve', 'activate', 'reject']) expect((await move(admin, a)).status).toBe(409);
    const r = await newTool();
    expect((await admin.put(`/${r.id}/reject`)).json.result.status).toBe('REJECTED');
    for (const a of ['approve', 'activate', 'reject']) expect((await admin.put(`/${r.id}/${a}`)).status).toBe(409);
    expect((await owner.put(`/${r.id}/config-params`, { maxRows: 5 })).status).toBe(409);
    expect(await auditActions(t.id)).toEqual(['activate', 'approve', 'create']);
  });

  it('Db Execute may be readOnly false only once a SystemAdmin approved it', async () => {
    expect(
      (
        await owner.post('', {
          displayName: 'Writer',
          baseToolId: base('db_execute'),
          configParams: { readOnly: false },
        })
      ).status,
    ).toBe(400);
    const t = await newTool('db_execute');
    expect(t.configParams).toMatchObject({ readOnly: true });
    const refused = await owner.put(`/${t.id}/config-params`, { readOnly: false });
    expect(refused.status).toBe(400);
    expect((await owner.put(`/${t.id}`, { configParams: { readOnly: false } })).status).toBe(400);
    await admin.put(`/${t.id}/approve`);
    expect((await owner.put(`/${t.id}/config-params`, { readOnly: false })).json.result.readOnly).toBe(false);
    const q = await newTool('db_query');
    expect((await owner.put(`/${q.id}/config-params`, { readOnly: false })).status).toBe(200);
  });

  it('lists newest first with agentId, search and kbStatus filters; soft delete hides the tool everywhere', async () => {
    const agent = crypto.randomUUID();
    const a = await newTool('http_request', { displayName: 'Weather lookup', description: 'Calls the forecast API' });
    const b = await newTool('http_request', { displayName: 'Stock lookup' });
    const c = await newTool('send_email', { displayName: 'Mailer' });
    await owner.put(`/${a.id}`, { agentIds: [agent] });
    await owner.put(`/${c.id}`, { agentIds: [agent, crypto.randomUUID()] });
    // The knowledge area (later) maintains chunkCount; set it directly here.
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.tenantItem(ctx.tenantA, 'TOOL', b.id),
        UpdateExpression: 'SET chunkCount = :n',
        ExpressionAttributeValues: { ':n': 12 },
      }),
    );
    const ids = async (q: string) =>
      ((await owner.get(`?pageSize=100${q}`)).json.result.items as { id: string }[]).map((i) => i.id);
    const all = await ids('');
    expect(all.indexOf(c.id)).toBeLessThan(all.indexOf(b.id));
    expect(all.indexOf(b.id)).toBeLessThan(all.indexOf(a.id));
    expect(await ids(`&agentId=${agent}`)).toEqual([c.id, a.id]);
    expect(await ids('&search=FORECAST')).toEqual([a.id]);
    expect(await ids('&kbStatus=1')).toEqual([b.id]);
    expect(await ids('&kbStatus=0')).not.toContain(b.id);
    expect((await owner.get(`/${b.id}/config`)).json.result.kbStatus).toEqual({ hasChunks: true, chunkCount: 12 });
    expect((await owner.get('?kbStatus=2')).status).toBe(400);

    const before = (await owner.get('?pageSize=1')).json.result.totalCount;
    expect((await owner.del(`/${a.id}`)).status).toBe(204);
    expect(await ids('')).not.toContain(a.id);
    expect(await ids(`&agentId=${agent}`)).toEqual([c.id]);
    expect((await owner.get('?pageSize=1')).json.result.totalCount).toBe(before - 1);
    for (const res of [
      await owner.get(`/${a.id}/config`),
      await owner.put(`/${a.id}`, { displayName: 'x' }),
      await owner.del(`/${a.id}`),
      await admin.put(`/${a.id}/approve`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect(await auditActions(a.id)).toEqual(['create', 'delete', 'update']);
  });

  it('is scoped to the tenant; members read only; a SystemAdmin reaches a tool by id', async () => {
    const t = await newTool();
    const b = as(ctx.ownerB);
    for (const res of [
      await b.get(`/${t.id}/config`),
      await b.get(`/${t.id}/config-params`),
      await b.put(`/${t.id}`, { displayName: 'x' }),
      await b.del(`/${t.id}`),
    ])
      expect(res.status).toBe(404);
    expect(((await b.get('?pageSize=100')).json.result.items as { id: string }[]).map((i) => i.id)).not.toContain(t.id);
    const member = as(ctx.memberA);
    expect((await member.get(`/${t.id}/config`)).status).toBe(200);
    expect((await member.put(`/${t.id}/config-params`, { maxRows: 3 })).status).toBe(403);
    expect((await admin.get(`/${t.id}/config`)).json.result.id).toBe(t.id);
    expect((await admin.put(`/${t.id}/approve?tenantId=${ctx.tenantB}`)).status).toBe(404);
  });
});
