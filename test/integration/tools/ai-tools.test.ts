import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS, CHAT_CHANNELS } from '#areas/tools/built-in-tools.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { invoke } from '#test/support/invoke.ts';
import { testParams } from '#test/support/test-ports.ts';
import { resolveTenantSecret } from '#areas/vault/tenant-secrets.ts';
import { auditActions as actionsInOrder } from '#test/support/audit.ts';

/** Audit actions sorted by name, as this file compares them. */
const auditActions = async (entityId: string) => (await actionsInOrder(entityId)).sort();

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
  expect(res).toAnswer(201);
  return res.json.result as { id: string; status: string; displayName: string; configParams: Record<string, unknown> };
};
/** An agent of a tenant, stored as the agents area will store it (no agent route exists yet). */
const seedAgent = async (tenantId: string, extra: Record<string, unknown> = {}) => {
  const id = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: { ...keys.tenantItem(tenantId, 'AGENT', id), id, name: `Agent ${id.slice(0, 6)}`, ...extra },
    }),
  );
  return id;
};
const toolItem = async (tenantId: string, id: string) =>
  (await ddb().send(new GetCommand({ TableName: config.tableName, Key: keys.tenantItem(tenantId, 'TOOL', id) }))).Item!;
/** Tenant secrets as the parameter store holds them. */
const tenantParams = (tenantId: string) =>
  Object.entries(testParams.dump()).filter(([name]) => name.startsWith(`/saas/local/tenants/${tenantId}/`));
const auditEntries = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string; changes: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items;

describe('built-in tools', () => {
  it('lists the spec catalog with stable ids and a send-message tool for five chat channels', async () => {
    const res = await owner.get('/built-in?pageSize=100');
    expect(res).toAnswer(200);
    const names = res.json.result.items.map((i: { name: string }) => i.name);
    for (const n of [
      'Browser Action',
      'Db Execute',
      'Db Query',
      'HTTP Request',
      'Manage Schedule',
      'Send Email',
      'MCP Server',
    ])
      expect(names).toContain(n);
    const chat = res.json.result.items.filter((i: { type: string }) => i.type === 'chat');
    expect(chat).toHaveLength(5);
    for (const channel of CHAT_CHANNELS)
      expect(chat.some((c: { name: string }) => c.name.includes(channel))).toBe(true);
    expect(res.json.result.totalCount).toBe(12);
    for (const i of res.json.result.items) expect(i.description.length).toBeGreaterThan(0);
    const page2 = await owner.get('/built-in?pageSize=5&page=3');
    expect(page2.json.result.items).toHaveLength(2);
  });

  it('select creates a PENDING tenant tool named after the built-in tool; an unknown base is 400', async () => {
    const res = await owner.post('/built-in/select', { baseToolId: base('send_email'), status: 'ACTIVE' });
    expect(res).toAnswer(201);
    expect(res.json.result).toMatchObject({
      displayName: 'Send Email',
      baseToolId: base('send_email'),
      type: 'email',
      status: 'PENDING',
      configParams: { maxRows: 100, readOnly: true, timeoutSeconds: 30 },
    });
    expect(await owner.post('/built-in/select', { baseToolId: crypto.randomUUID() })).toAnswer(400);
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
        connectionString: 'postgres://reader:pw@orders-db:5432/app',
      },
    });
    expect(cfg).toAnswer(200);
    expect(cfg.json.result.schema).toEqual({
      databaseType: 'postgres',
      schemaName: 'public',
      tables: ['orders', 'customers'],
      connectionString: expect.stringMatching(new RegExp(`^vault://tenants/${ctx.tenantA}/tools/${t.id}/connection-`)),
      connectionStringSet: true,
      connectionTarget: 'orders-db:5432/app',
      serverUrl: null,
      authMethod: 'none',
      authHeaderName: null,
      oauthClientId: null,
      oauthIssuer: null,
      oauthScope: null,
    });
    expect((await owner.get(`/${t.id}/config`)).json.result).toEqual(cfg.json.result);
    const params = await owner.put(`/${t.id}/config-params`, { maxRows: 10_000, timeoutSeconds: 300 });
    expect(params.json.result).toEqual({
      maxRows: 10_000,
      readOnly: true,
      timeoutSeconds: 300,
      maxSteps: 10,
      allowedHosts: [],
      allowedRecipients: [],
      channelId: null,
      allowedChannelRecipients: [],
      calendarId: null,
      requiresApproval: false,
      approvalTimeoutMinutes: 60,
      allowedTools: [],
      toolApproval: {},
      maxResponseBytes: 262_144,
      maxResultChars: 4000,
    });
    expect((await owner.get(`/${t.id}/config-params`)).json.result).toEqual(params.json.result);
    for (const bad of [
      { maxRows: 0 },
      { maxRows: 10_001 },
      { timeoutSeconds: 0 },
      { timeoutSeconds: 301 },
      { maxRows: 1.5 },
      { readOnly: 'no' },
    ]) {
      expect(await owner.put(`/${t.id}/config-params`, bad), JSON.stringify(bad)).toAnswer(400);
    }
    const agent = await seedAgent(ctx.tenantA);
    const up = await owner.put(`/${t.id}`, { displayName: 'Orders reader', agentIds: [agent] });
    expect(up.json.result).toMatchObject({
      displayName: 'Orders reader',
      agentIds: [agent],
      configParams: { maxRows: 10_000 },
    });
    expect(await auditActions(t.id)).toEqual(['config', 'config-params', 'create', 'update']);
  });

  it('keeps a connection string as a tenant secret: write-only, the tool holds a reference, reads show set or not set', async () => {
    const t = await newTool();
    const value = `postgres://reader:${crypto.randomUUID()}@orders-db:5432/app`;
    const res = await owner.put(`/${t.id}/config`, { schema: { connectionString: value } });
    expect(res).toAnswer(200);
    const reference = res.json.result.schema.connectionString as string;
    expect(reference).toMatch(new RegExp(`^vault://tenants/${ctx.tenantA}/tools/${t.id}/connection-[a-z0-9-]+$`));
    expect(res.json.result.schema.connectionStringSet).toBe(true);
    // The value is in the tenant's namespace of the store, and nowhere else.
    const name = `/saas/local/tenants/${ctx.tenantA}/${reference.slice(`vault://tenants/${ctx.tenantA}/`.length)}`;
    expect(tenantParams(ctx.tenantA).map(([n, p]) => [n, p.value])).toContainEqual([name, value]);
    const read = await owner.get(`/${t.id}/config`);
    for (const text of [res.text, read.text, JSON.stringify(await toolItem(ctx.tenantA, t.id))])
      expect(text).not.toContain(value);
    expect(JSON.stringify(await auditEntries(t.id))).not.toContain(value);
    expect(await resolveTenantSecret(ctx.tenantA, reference)).toBe(value);

    // Reading the reference back and sending it again changes nothing.
    expect(await owner.put(`/${t.id}/config`, { schema: { connectionString: reference } })).toAnswer(200);
    expect((await owner.get(`/${t.id}/config`)).json.result.schema.connectionString).toBe(reference);

    // A new value replaces the secret (the old one is deleted); null removes it.
    const next = await owner.put(`/${t.id}/config`, { schema: { connectionString: `${value}?sslmode=require` } });
    const nextRef = next.json.result.schema.connectionString as string;
    expect(nextRef).not.toBe(reference);
    expect(tenantParams(ctx.tenantA).some(([n]) => n === name)).toBe(false);
    const cleared = await owner.put(`/${t.id}/config`, { schema: { connectionString: null } });
    expect(cleared.json.result.schema).toMatchObject({ connectionString: null, connectionStringSet: false });
    expect(tenantParams(ctx.tenantA).some(([n]) => n.includes(`/tools/${t.id}/`))).toBe(false);
    for (const bad of ['', 'x'.repeat(4097)])
      expect((await owner.put(`/${t.id}/config`, { schema: { connectionString: bad } })).status).toBe(400);

    // Deleting the tool deletes its secret.
    await owner.put(`/${t.id}/config`, { schema: { connectionString: value } });
    expect(tenantParams(ctx.tenantA).some(([n]) => n.includes(`/tools/${t.id}/`))).toBe(true);
    expect(await owner.del(`/${t.id}`)).toAnswer(204);
    expect(tenantParams(ctx.tenantA).some(([n]) => n.includes(`/tools/${t.id}/`))).toBe(false);
  });

  it("refuses references outside the caller's namespace when written and when resolved", async () => {
    const mine = await newTool();
    // Tenant B's own secret, and the platform's vault secrets.
    const theirs = (await as(ctx.ownerB).post('', { displayName: 'B tool', baseToolId: base('db_query') })).json.result
      .id as string;
    const theirRef = (
      await as(ctx.ownerB).put(`/${theirs}/config`, { schema: { connectionString: 'postgres://b:secret-b@db/b' } })
    ).json.result.schema.connectionString as string;
    expect(theirRef).toMatch(new RegExp(`^vault://tenants/${ctx.tenantB}/`));
    for (const connectionString of [
      theirRef,
      'vault://prod/orders-db',
      `vault://tenants/${ctx.tenantA}/tools/${crypto.randomUUID()}/connection-nothing`,
      `vault://tenants/${ctx.tenantA}/../${ctx.tenantB}/x`,
    ]) {
      const res = await owner.put(`/${mine.id}/config`, { schema: { connectionString } });
      expect(res, connectionString).toAnswer(400);
      expect(res.text).not.toContain('secret-b');
    }
    expect((await owner.get(`/${mine.id}/config`)).json.result.schema).toMatchObject({
      connectionString: null,
      connectionStringSet: false,
    });
    // Resolving checks the namespace again: another tenant's reference is refused.
    await expect(resolveTenantSecret(ctx.tenantA, theirRef)).rejects.toMatchObject({ status: 403 });
    expect(await resolveTenantSecret(ctx.tenantB, theirRef)).toBe('postgres://b:secret-b@db/b');
    // A record that somehow holds a foreign reference shows it as not set.
    await ddb().send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.tenantItem(ctx.tenantA, 'TOOL', mine.id),
        UpdateExpression: 'SET #s.connectionString = :ref',
        ExpressionAttributeNames: { '#s': 'schema' },
        ExpressionAttributeValues: { ':ref': theirRef },
      }),
    );
    expect((await owner.get(`/${mine.id}/config`)).json.result.schema).toMatchObject({
      connectionString: null,
      connectionStringSet: false,
    });
  });

  it('sends an approved tool back to review when its connection or read-only flag changes', async () => {
    const t = await newTool('db_execute');
    expect(await owner.put(`/${t.id}/config`, { schema: { connectionString: 'postgres://rw:pw@db/app' } })).toAnswer(
      200,
    );
    expect((await admin.put(`/${t.id}/approve`)).json.result.status).toBe('APPROVED');
    const status = async () => (await owner.get(`/${t.id}/config`)).json.result.status as string;

    // What was not reviewed may change freely.
    expect(await owner.put(`/${t.id}/config-params`, { maxRows: 50 })).toAnswer(200);
    expect(await owner.put(`/${t.id}`, { displayName: 'Orders writer' })).toAnswer(200);
    const ref = (await owner.get(`/${t.id}/config`)).json.result.schema.connectionString;
    expect(await owner.put(`/${t.id}/config`, { schema: { connectionString: ref, databaseType: 'pg' } })).toAnswer(200);
    expect(await status()).toBe('APPROVED');

    // The schema and the tables were part of what was reviewed: changing either is a new review.
    for (const schema of [{ tables: ['orders'] }, { schemaName: 'sales' }]) {
      expect((await owner.put(`/${t.id}/config`, { schema })).json.result.status, JSON.stringify(schema)).toBe(
        'PENDING',
      );
      await admin.put(`/${t.id}/approve`);
    }

    // Repointing the connection: back to PENDING, and the SystemAdmin must approve again.
    const moved = await owner.put(`/${t.id}/config`, { schema: { connectionString: 'postgres://rw:pw@other-db/app' } });
    expect(moved.json.result.status).toBe('PENDING');
    expect(await admin.put(`/${t.id}/activate`)).toAnswer(409);
    await admin.put(`/${t.id}/approve`);
    expect((await admin.put(`/${t.id}/activate`)).json.result.status).toBe('ACTIVE');

    // Switching writes on (either route): back to PENDING, readOnly false kept for the review.
    const writes = await owner.put(`/${t.id}/config-params`, { readOnly: false });
    expect(writes.json.result.readOnly).toBe(false);
    expect(await status()).toBe('PENDING');
    expect(await owner.put(`/${t.id}/config-params`, { maxRows: 60 })).toAnswer(200);
    await admin.put(`/${t.id}/approve`);
    const back = await owner.put(`/${t.id}`, { configParams: { readOnly: true } });
    expect(back.json.result).toMatchObject({ status: 'PENDING', configParams: { readOnly: true } });
    const changes = (await auditEntries(t.id)).map((a) => JSON.parse(a.changes)).filter((c) => c.status?.to);
    // tables, schemaName and the connection from APPROVED; writes on from ACTIVE, and off again from APPROVED.
    expect(changes.map((c) => `${c.status.from}>${c.status.to}`).sort()).toEqual([
      'ACTIVE>PENDING',
      ...Array(4).fill('APPROVED>PENDING'),
    ]);
  });

  it('refuses a Db connection string with a socket, a file option or no single host, and shows the reviewer its target', async () => {
    const t = await newTool('db_query');
    for (const connectionString of [
      'postgres:///app',
      'postgres://reader:pw@%2Fvar%2Frun%2Fpostgresql/app',
      'postgres://reader:pw@db.example.com/app?host=/var/run/postgresql',
      'postgres://reader:pw@db.example.com/app?sslrootcert=/etc/passwd',
      'postgres://reader:pw@db.example.com/app?options=-c%20default_transaction_read_only%3Doff',
      'postgres://reader:pw@db1.example.com,db2.example.com/app',
      'host=/var/run/postgresql dbname=app',
      'mysql://reader:pw@db.example.com/app',
    ]) {
      const res = await owner.put(`/${t.id}/config`, { schema: { connectionString } });
      expect(res, connectionString).toAnswer(400);
      expect(res.json.error.details, connectionString).toEqual([
        { path: 'body.schema.connectionString', message: expect.stringMatching(/./) },
      ]);
    }
    expect((await owner.get(`/${t.id}/config`)).json.result.schema).toMatchObject({ connectionStringSet: false });
    const ok = await owner.put(`/${t.id}/config`, {
      schema: { connectionString: 'postgresql://reader:s3cret@db.example.com:6432/shop?sslmode=require' },
    });
    expect(ok).toAnswer(200);
    expect(ok.json.result.schema.connectionTarget).toBe('db.example.com:6432/shop');
    const reviewed = await admin.get(`/${t.id}/config`);
    expect(reviewed.json.result.schema.connectionTarget).toBe('db.example.com:6432/shop');
    expect(reviewed.text).not.toContain('s3cret');
  });

  it('stores allowedHosts and allowedRecipients lowercased, shows them, and refuses what is not a host or address', async () => {
    const h = await newTool('http_request', {
      configParams: { allowedHosts: ['API.Acme.example', 'api.acme.example', 'status.acme.example'] },
    });
    expect(h.configParams).toMatchObject({ allowedHosts: ['api.acme.example', 'status.acme.example'] });
    // localhost is a name the address guard refuses, unless the local run's loopback switch is on.
    expect(
      (await newTool('http_request', { configParams: { allowedHosts: ['LocalHost'] } })).configParams,
    ).toMatchObject({
      allowedHosts: ['localhost'],
    });
    const m = await newTool('send_email');
    const put = await owner.put(`/${m.id}/config-params`, { allowedRecipients: ['Team@Acme.example', 'acme.example'] });
    expect(put).toAnswer(200);
    expect(put.json.result.allowedRecipients).toEqual(['team@acme.example', 'acme.example']);
    const listed = (await owner.get('?pageSize=100')).json.result.items.find((i: { id: string }) => i.id === m.id);
    expect(listed.configParams.allowedRecipients).toEqual(['team@acme.example', 'acme.example']);
    expect((await owner.get(`/${h.id}/config-params`)).json.result.allowedHosts).toEqual([
      'api.acme.example',
      'status.acme.example',
    ]);
    const hosts = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.acme.example`);
    for (const bad of [
      { allowedHosts: ['https://api.acme.example'] },
      { allowedHosts: ['api.acme.example:8443'] },
      { allowedHosts: ['api.acme.example/path'] },
      { allowedHosts: ['127.0.0.1'] },
      { allowedHosts: ['intranet'] },
      { allowedHosts: ['*.acme.example'] },
      { allowedHosts: ['bad-.acme.example'] },
      { allowedHosts: hosts(51) },
      { allowedHosts: 'api.acme.example' },
      { allowedRecipients: ['team@acme.example, evil@example.com'] },
      { allowedRecipients: ['team@acme.example\r\nBcc: evil@example.com'] },
      { allowedRecipients: ['@acme.example'] },
      { allowedRecipients: ['not an address'] },
      { allowedRecipients: hosts(51) },
    ]) {
      const res = await owner.put(`/${h.id}/config-params`, bad);
      expect(res, JSON.stringify(bad)).toAnswer(400);
    }
    expect(await owner.put(`/${h.id}/config-params`, { allowedHosts: hosts(50) })).toAnswer(200);
  });

  it('sends an approved tool back to review when an allowed host or recipient is added, not when one is removed', async () => {
    const t = await newTool('http_request', { configParams: { allowedHosts: ['a.acme.example', 'b.acme.example'] } });
    await admin.put(`/${t.id}/approve`);
    expect((await admin.put(`/${t.id}/activate`)).json.result.status).toBe('ACTIVE');
    const narrowed = await owner.put(`/${t.id}/config-params`, { allowedHosts: ['a.acme.example'] });
    expect(narrowed).toAnswer(200);
    expect((await owner.get(`/${t.id}/config`)).json.result.status).toBe('ACTIVE');
    const widened = await owner.put(`/${t.id}`, { configParams: { allowedRecipients: ['x@acme.example'] } });
    expect(widened.json.result).toMatchObject({
      status: 'PENDING',
      configParams: { allowedHosts: ['a.acme.example'] },
    });
  });

  it("names only the tenant's own agents (agents do not exist until the agents area stores them)", async () => {
    const t = await newTool();
    const own = await seedAgent(ctx.tenantA);
    const foreign = await seedAgent(ctx.tenantB);
    const gone = await seedAgent(ctx.tenantA, { deletedAt: '2026-01-01T00:00:00.000Z' });
    for (const agentIds of [[crypto.randomUUID()], [own, foreign], [gone]]) {
      const res = await owner.put(`/${t.id}`, { agentIds });
      expect(res, JSON.stringify(agentIds)).toAnswer(400);
      expect(res.json.error.details[0].message).toMatch(/agent/);
    }
    expect((await owner.get(`?pageSize=100&agentId=${foreign}`)).json.result.items).toEqual([]);
    expect((await owner.put(`/${t.id}`, { agentIds: [own, own] })).json.result.agentIds).toEqual([own]);
    expect((await owner.put(`/${t.id}`, { agentIds: [] })).json.result.agentIds).toEqual([]);
  });

  it('answers 405 (Allow: GET) to other methods on /api/tools/built-in instead of reading it as a tool id', async () => {
    for (const method of ['PUT', 'DELETE']) {
      const res = await invoke(method, '/api/tools/built-in', {
        token: ctx.ownerA,
        body: method === 'PUT' ? {} : undefined,
      });
      expect(res).toAnswer(405);
      expect(res.headers.allow).toBe('GET');
    }
    expect(await invoke('GET', '/api/tools/built-in/select', { token: ctx.ownerA })).toAnswer(405);
  });

  it('moves along the approval table by SystemAdmin only; other moves are 409', async () => {
    const t = await newTool();
    const move = (who: ReturnType<typeof as>, action: string) => who.put(`/${t.id}/${action}`);
    expect(await move(owner, 'approve')).toAnswer(403);
    expect(await move(admin, 'activate')).toAnswer(409);
    const approved = await move(admin, 'approve');
    expect(approved).toAnswer(200);
    expect(approved.json.result.status).toBe('APPROVED');
    expect(await move(admin, 'approve')).toAnswer(409);
    expect((await move(admin, 'activate')).json.result.status).toBe('ACTIVE');
    for (const a of ['approve', 'activate', 'reject']) expect((await move(admin, a)).status).toBe(409);
    const r = await newTool();
    expect((await admin.put(`/${r.id}/reject`)).json.result.status).toBe('REJECTED');
    for (const a of ['approve', 'activate', 'reject']) expect((await admin.put(`/${r.id}/${a}`)).status).toBe(409);
    expect(await owner.put(`/${r.id}/config-params`, { maxRows: 5 })).toAnswer(409);
    expect(await auditActions(t.id)).toEqual(['activate', 'approve', 'create']);
  });

  it('Db Execute may be readOnly false only once a SystemAdmin approved it', async () => {
    expect(
      await owner.post('', {
        displayName: 'Writer',
        baseToolId: base('db_execute'),
        configParams: { readOnly: false },
      }),
    ).toAnswer(400);
    const t = await newTool('db_execute');
    expect(t.configParams).toMatchObject({ readOnly: true });
    const refused = await owner.put(`/${t.id}/config-params`, { readOnly: false });
    expect(refused).toAnswer(400);
    expect(await owner.put(`/${t.id}`, { configParams: { readOnly: false } })).toAnswer(400);
    await admin.put(`/${t.id}/approve`);
    expect((await owner.put(`/${t.id}/config-params`, { readOnly: false })).json.result.readOnly).toBe(false);
    const q = await newTool('db_query');
    expect(await owner.put(`/${q.id}/config-params`, { readOnly: false })).toAnswer(200);
  });

  it('lists newest first with agentId, search and kbStatus filters; soft delete hides the tool everywhere', async () => {
    const agent = await seedAgent(ctx.tenantA);
    const other = await seedAgent(ctx.tenantA);
    const a = await newTool('http_request', { displayName: 'Weather lookup', description: 'Calls the forecast API' });
    const b = await newTool('http_request', { displayName: 'Stock lookup' });
    const c = await newTool('send_email', { displayName: 'Mailer' });
    await owner.put(`/${a.id}`, { agentIds: [agent] });
    await owner.put(`/${c.id}`, { agentIds: [agent, other] });
    // The filter alone: chunkCount set directly (how it is maintained: ai-tools-kb-status.test.ts).
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
    expect(await owner.get('?kbStatus=2')).toAnswer(400);

    const before = (await owner.get('?pageSize=1')).json.result.totalCount;
    expect(await owner.del(`/${a.id}`)).toAnswer(204);
    expect(await ids('')).not.toContain(a.id);
    expect(await ids(`&agentId=${agent}`)).toEqual([c.id]);
    expect((await owner.get('?pageSize=1')).json.result.totalCount).toBe(before - 1);
    for (const res of [
      await owner.get(`/${a.id}/config`),
      await owner.put(`/${a.id}`, { displayName: 'x' }),
      await owner.del(`/${a.id}`),
      await admin.put(`/${a.id}/approve`),
    ]) {
      expect(res).toAnswer(404);
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
    expect(await member.get(`/${t.id}/config`)).toAnswer(200);
    expect(await member.put(`/${t.id}/config-params`, { maxRows: 3 })).toAnswer(403);
    expect((await admin.get(`/${t.id}/config`)).json.result.id).toBe(t.id);
    expect(await admin.put(`/${t.id}/approve?tenantId=${ctx.tenantB}`)).toAnswer(404);
  });
});
