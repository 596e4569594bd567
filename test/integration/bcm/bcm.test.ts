import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { caller, invoke } from '#test/support/invoke.ts';
import { seedUser } from '#test/support/fuzz/world.ts';

const B = '/api/bcm/admin';
let ctx: Awaited<ReturnType<typeof twoTenants>>;
const as = (token: string) => caller(B, token);
let owner: ReturnType<typeof as>;

beforeAll(async () => {
  ctx = await twoTenants();
  owner = as(ctx.ownerA);
});

const newBia = async (title = `BIA ${crypto.randomUUID().slice(0, 6)}`) => {
  const res = await owner.post('/bia', { title });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; status: number; version: number };
};
const newEntry = async (biaId: string, briefDescription = 'Payroll') => {
  const res = await owner.post(`/bia/${biaId}/entries`, { briefDescription });
  expect(res).toAnswer(201);
  return res.json.result.id as string;
};
const partitionSize = async (pk: string) =>
  (
    await ddb().send(
      new QueryCommand({
        TableName: config.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        Select: 'COUNT',
      }),
    )
  ).Count;

describe('BIAs', () => {
  it('start as Draft and move only along the documented table (409 otherwise); Completed is read-only', async () => {
    const b = await newBia();
    expect(b).toMatchObject({ status: 0, version: 1, sourceBiaId: null, assignments: [], entries: [] });
    const move = (to: number) => owner.put(`/bia/${b.id}/status`, { newStatus: to });
    expect(await move(2)).toAnswer(409);
    expect((await move(1)).json.result.status).toBe(1);
    expect((await move(0)).json.result.status).toBe(0);
    expect(await move(1)).toAnswer(200);
    expect((await move(2)).json.result.status).toBe(2);
    for (const to of [0, 1, 2]) expect((await move(to)).status).toBe(409);
    expect(await owner.put(`/bia/${b.id}`, { title: 'Changed' })).toAnswer(409);
    expect(await owner.post(`/bia/${b.id}/entries`, { briefDescription: 'x' })).toAnswer(409);
    expect(await move(7)).toAnswer(400);
  });

  it('new-version copies entries, parts and assignments into a Draft that records its source', async () => {
    const b = await newBia('Versioned');
    const first = await newEntry(b.id, 'Payroll');
    const second = await newEntry(b.id, 'Invoicing');
    expect(
      await owner.put(`/bia/${b.id}/entries/${first}/digital-assets`, [{ name: 'Ledger', description: null }]),
    ).toAnswer(200);
    expect(await owner.put(`/bia/${b.id}/entries/${second}/process-dependencies`, [{ id: first }])).toAnswer(200);
    const member = await seedUser(ctx.tenantA, ['TenantMember']);
    expect(await owner.post(`/bia/${b.id}/assignments`, { userId: member.id, type: 0 })).toAnswer(201);
    await owner.put(`/bia/${b.id}/status`, { newStatus: 1 });
    await owner.put(`/bia/${b.id}/status`, { newStatus: 2 });

    const copy = await owner.post(`/bia/${b.id}/new-version`);
    expect(copy).toAnswer(201);
    expect(copy.json.result).toMatchObject({
      title: 'Versioned',
      status: 0,
      version: 2,
      sourceBiaId: b.id,
      assignments: [{ userId: member.id, type: 0 }],
    });
    const copied = copy.json.result.entries as { id: string; briefDescription: string }[];
    expect(copied.map((e) => e.briefDescription)).toEqual(['Payroll', 'Invoicing']);
    expect(copied.map((e) => e.id)).not.toContain(first);
    const invoicing = await owner.get(`/bia/${copy.json.result.id}/entries/${copied[1]!.id}`);
    expect(invoicing.json.result.processDependencies).toEqual([{ id: copied[0]!.id, title: 'Payroll' }]);
    const payroll = await owner.get(`/bia/${copy.json.result.id}/entries/${copied[0]!.id}`);
    expect(payroll.json.result.digitalAssets).toEqual([{ name: 'Ledger', description: null }]);
    expect((await owner.get(`/bia/${b.id}`)).json.result.status).toBe(2);
  });

  it('lists entries of an existing BIA only: empty is 200, an unknown or deleted BIA 404', async () => {
    const b = await newBia();
    expect((await owner.get(`/bia/${b.id}/entries`)).json.result).toMatchObject({ items: [], totalCount: 0 });
    await newEntry(b.id);
    expect((await owner.get(`/bia/${b.id}/entries?page=3`)).json.result).toMatchObject({ items: [], totalCount: 1 });
    expect(await owner.get(`/bia/${crypto.randomUUID()}/entries`)).toAnswer(404);
    expect(await as(ctx.ownerB).get(`/bia/${b.id}/entries`)).toAnswer(404);
    expect(await owner.del(`/bia/${b.id}`)).toAnswer(204);
    expect(await owner.get(`/bia/${b.id}/entries`)).toAnswer(404);
  });

  it('reads an entry in one request, and tells an unknown BIA from an unknown entry', async () => {
    const b = await newBia();
    const id = await newEntry(b.id);
    const spy = vi.spyOn(ddb(), 'send');
    const res = await owner.get(`/bia/${b.id}/entries/${id}`);
    const reads = spy.mock.calls.map(([command]) => command.constructor.name).filter((c) => !/Update|Put/.test(c));
    spy.mockRestore();
    expect(res).toAnswer(200);
    expect(reads).toEqual(['GetCommand']);
    const missing = async (path: string, token = ctx.ownerA) => {
      const r = await as(token).get(path);
      expect(r).toAnswer(404);
      return r.json.error.message as string;
    };
    expect(await missing(`/bia/${b.id}/entries/${crypto.randomUUID()}`)).toMatch(/Entry/);
    expect(await missing(`/bia/${crypto.randomUUID()}/entries/${id}`)).toMatch(/BIA/);
    expect(await missing(`/bia/${b.id}/entries/${id}`, ctx.ownerB)).toMatch(/BIA/);
    expect(await owner.del(`/bia/${b.id}`)).toAnswer(204);
    expect(await missing(`/bia/${b.id}/entries/${id}`)).toMatch(/BIA/);
  });

  it('deletes a BIA with hundreds of entries and leaves nothing behind', async () => {
    const b = await newBia('Big');
    await Promise.all(
      Array.from({ length: 260 }, (_, i) => owner.post(`/bia/${b.id}/entries`, { briefDescription: `E${i}` })),
    );
    expect((await owner.get(`/bia/${b.id}/entries?pageSize=5`)).json.result.totalCount).toBe(260);
    const member = await seedUser(ctx.tenantA, ['TenantMember']);
    await owner.post(`/bia/${b.id}/assignments`, { userId: member.id, type: 0 });
    const gone = await owner.del(`/bia/${b.id}`);
    expect(gone).toAnswer(204);
    expect(await owner.get(`/bia/${b.id}`)).toAnswer(404);
    expect(await partitionSize(keys.childCollection(ctx.tenantA, 'BIA', b.id, 'ENTRY'))).toBe(0);
    expect(await partitionSize(keys.childCollection(ctx.tenantA, 'BIA', b.id, 'ASSIGN'))).toBe(0);
  }, 120_000);

  it('assigns users and groups of the tenant once each, with their names', async () => {
    const b = await newBia();
    const user = await seedUser(ctx.tenantA, ['TenantMember']);
    const group = await invoke('POST', '/api/groups', {
      token: ctx.ownerA,
      body: { name: `Crew ${crypto.randomUUID().slice(0, 6)}`, tenantId: ctx.tenantA },
    });
    expect(group).toAnswer(201);
    const added = await owner.post(`/bia/${b.id}/assignments`, { userId: user.id, type: 0 });
    expect(added.json.result.assignments).toEqual([{ userId: user.id, userName: 'Fuzz User', type: 0 }]);
    expect(added.json.result.assignedToId).toBe(user.id);
    expect(await owner.post(`/bia/${b.id}/assignments`, { userId: user.id, type: 0 })).toAnswer(409);
    const withGroup = await owner.post(`/bia/${b.id}/assignments`, { userId: group.json.result.id, type: 1 });
    expect(withGroup.json.result.assignments).toContainEqual({
      userId: group.json.result.id,
      userName: group.json.result.name,
      type: 1,
    });
    const foreign = await seedUser(ctx.tenantB, ['TenantMember']);
    expect(await owner.post(`/bia/${b.id}/assignments`, { userId: foreign.id, type: 0 })).toAnswer(400);
    expect(await owner.post(`/bia/${b.id}/assignments`, { userId: user.id, type: 1 })).toAnswer(400);
    expect(await owner.del(`/bia/${b.id}/assignments/${user.id}`)).toAnswer(204);
    expect(await owner.del(`/bia/${b.id}/assignments/${user.id}`)).toAnswer(404);
  });
});

describe('entries and their parts', () => {
  it('completes once (idempotent), validates each part, and refuses unknown parts and dependencies', async () => {
    const b = await newBia();
    const id = await newEntry(b.id);
    const done = await owner.patch(`/bia/${b.id}/entries/${id}/complete`);
    expect(done.json.result.completeAt).toMatch(/^\d{4}-/);
    expect((await owner.patch(`/bia/${b.id}/entries/${id}/complete`)).json.result.completeAt).toBe(
      done.json.result.completeAt,
    );

    const part = (name: string, body: unknown) => owner.put(`/bia/${b.id}/entries/${id}/${name}`, body);
    expect((await part('printed-assets', [{ name: 'Binder', quantity: 3 }])).json.result.printedAssets).toEqual([
      { name: 'Binder', quantity: 3 },
    ]);
    expect(await part('printed-assets', [{ name: '', quantity: 3 }])).toAnswer(400);
    expect(await part('printed-assets', [{ name: 'x', quantity: -1 }])).toAnswer(400);
    expect(
      await part(
        'printed-assets',
        Array.from({ length: 201 }, () => ({ name: 'x' })),
      ),
    ).toAnswer(400);
    expect(await part('mystery-assets', [])).toAnswer(404);
    expect(await part('process-dependencies', [{ id }])).toAnswer(400);
    expect(await part('process-dependencies', [{ id: crypto.randomUUID() }])).toAnswer(400);
    const detail = await owner.get(`/bia/${b.id}/entries/${id}`);
    expect(Object.keys(detail.json.result).sort()).toEqual(
      [
        'communicationSystems',
        'completeAt',
        'digitalAssets',
        'equipmentAssets',
        'id',
        'briefDescription',
        'printedAssets',
        'processDependencies',
        'productionSystems',
        'recoveryStrategies',
        'supplierDependencies',
      ].sort(),
    );
  });
});

describe('a BIA completed while an entry is added', () => {
  /**
   * The race, made deterministic: the entry's create has read the BIA (InProgress, editable) and
   * is about to commit when the BIA is completed. Only the transaction's own check that the BIA
   * is not Completed stands between the two; without it the entry lands in a read-only BIA.
   */
  it('refuses the entry (409) and leaves the Completed BIA without it', async () => {
    const b = await newBia();
    expect(await owner.put(`/bia/${b.id}/status`, { newStatus: 1 })).toAnswer(200);
    const client = ddb();
    const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
    let completed: number | undefined;
    const spy = vi.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
      const entryWrite =
        command instanceof TransactWriteCommand && JSON.stringify(command.input).includes(`#BIA#${b.id}#ENTRY`);
      if (entryWrite && completed === undefined) {
        completed = 0;
        completed = (await owner.put(`/bia/${b.id}/status`, { newStatus: 2 })).status;
      }
      return send(command);
    }) as never);
    try {
      const added = await owner.post(`/bia/${b.id}/entries`, { briefDescription: 'Late' });
      expect(completed).toBe(200);
      expect(added).toAnswer(409);
    } finally {
      spy.mockRestore();
    }
    const after = (await owner.get(`/bia/${b.id}`)).json.result;
    expect(after).toMatchObject({ status: 2, entries: [] });
    expect(await partitionSize(keys.childCollection(ctx.tenantA, 'BIA', b.id, 'ENTRY'))).toBe(0);
  });
});

describe('risks, assessments and actions', () => {
  it('moves risk status along the documented table and keeps the scores from the assessments', async () => {
    const created = await owner.post('/risk', { title: 'Flood', category: 1, level: 3 });
    expect(created).toAnswer(201);
    const risk = created.json.result;
    expect(risk).toMatchObject({ status: 0, impactScore: 5, probabilityScore: 1, risks: [], mitigationActions: [] });
    // A create answers the created record, so the client learns the new id.
    const assessed = await owner.post(`/risk/${risk.id}/risks`, { name: 'Q1', score: 20 });
    expect(assessed).toAnswer(201);
    expect(assessed.json.result).toMatchObject({ riskId: risk.id, name: 'Q1', score: 20 });
    const assessmentId = assessed.json.result.id;
    const scored = (await owner.get(`/risk/${risk.id}`)).json.result;
    expect(scored.probabilityScore).toBe(4);
    expect(scored.risks).toEqual([{ id: assessmentId, name: 'Q1', score: 20 }]);
    expect((await owner.put(`/risk/${risk.id}/risks/${assessmentId}`, { score: 5 })).json.result.probabilityScore).toBe(
      1,
    );
    expect(await owner.post(`/risk/${risk.id}/risks`, { name: 'bad', score: 26 })).toAnswer(400);

    const action = await owner.post(`/risk/${risk.id}/risks/${assessmentId}/actions`, { title: 'Sandbags' });
    expect(action).toAnswer(201);
    expect(action.json.result).toMatchObject({
      riskId: risk.id,
      assessmentId,
      title: 'Sandbags',
      status: 0,
      dueAt: null,
    });
    const actionId = action.json.result.id;
    expect((await owner.get(`/risk/${risk.id}`)).json.result.mitigationActions).toEqual([
      { id: actionId, title: 'Sandbags', status: 0, assessmentId, dueAt: null },
    ]);
    expect(await owner.put(`/risk/${risk.id}/risks/${assessmentId}/actions/${actionId}`, { status: 2 })).toAnswer(200);
    expect(await owner.put(`/risk/${risk.id}/risks/${assessmentId}/actions/${actionId}`, { status: 0 })).toAnswer(409);

    const move = (to: number) => owner.put(`/risk/${risk.id}/status`, { newStatus: to });
    expect(await move(3)).toAnswer(409);
    for (const to of [1, 2, 3, 4, 0]) expect((await move(to)).json.result.status).toBe(to);
    expect(await owner.del(`/risk/${risk.id}/risks/${assessmentId}`)).toAnswer(204);
    const after = (await owner.get(`/risk/${risk.id}`)).json.result;
    expect(after).toMatchObject({ probabilityScore: 1, risks: [], mitigationActions: [] });
  });
});

describe('dashboard, thresholds and access', () => {
  it('counts BIAs, entries, progress, open risks by level and recent activity for the tenant only', async () => {
    const t = await twoTenants();
    const o = as(t.ownerA);
    const b = (await o.post('/bia', { title: 'Dash' })).json.result;
    const e1 = (await o.post(`/bia/${b.id}/entries`, { briefDescription: 'One' })).json.result.id;
    await o.post(`/bia/${b.id}/entries`, { briefDescription: 'Two', completeAt: '2999-01-01T00:00:00.000Z' });
    await o.patch(`/bia/${b.id}/entries/${e1}/complete`);
    await o.post('/risk', { title: 'High', category: 0, level: 2 });
    const low = (await o.post('/risk', { title: 'Low', category: 0, level: 0 })).json.result;
    await o.put(`/risk/${low.id}/status`, { newStatus: 4 });
    const d = (await o.get('/dashboard')).json.result;
    expect(d).toMatchObject({
      totalAssessments: 1,
      criticalFunctions: { identified: 2, pending: 1 },
      activeRisks: { highImpact: 1, mediumImpact: 0, lowImpact: 0 },
      biaProgressOverview: { completedEntries: 1, totalEntries: 2, percentageComplete: 50 },
      upcomingTasks: [{ title: 'Two', dueAt: '2999-01-01T00:00:00.000Z' }],
    });
    expect(d.recentActivities[0]).toMatchObject({ activityType: 4 });
    expect((await as(t.ownerB).get('/dashboard')).json.result.totalAssessments).toBe(0);
  });

  it('answers with the same 3 DynamoDB requests for a small and a large tenant', async () => {
    const requestsFor = async (token: string) => {
      const spy = vi.spyOn(ddb(), 'send');
      const res = await as(token).get('/dashboard');
      const calls = spy.mock.calls.map(([command]) => command.constructor.name);
      spy.mockRestore();
      expect(res).toAnswer(200);
      return calls.filter((c) => !/Update|Put/.test(c)); // the rate limiter's counter is not the dashboard's
    };
    const small = await twoTenants();
    const large = await twoTenants();
    const o = as(large.ownerA);
    const bias = await Promise.all(Array.from({ length: 12 }, (_, i) => o.post('/bia', { title: `B${i}` })));
    await Promise.all(
      bias.flatMap((b) =>
        Array.from({ length: 10 }, (_, i) =>
          o.post(`/bia/${b.json.result.id}/entries`, {
            briefDescription: `E${i}`,
            completeAt: i % 2 ? '2999-01-01T00:00:00.000Z' : null,
          }),
        ),
      ),
    );
    const few = await requestsFor(small.ownerA);
    const many = await requestsFor(large.ownerA);
    expect(few.length).toBeGreaterThan(0);
    expect(few.length).toBeLessThanOrEqual(3);
    expect(many).toEqual(few);
    expect((await o.get('/dashboard')).json.result).toMatchObject({
      totalAssessments: 12,
      criticalFunctions: { identified: 120, pending: 120 },
    });
  }, 120_000);

  it('stores thresholds per tenant (one per dimension) and keeps members read-only', async () => {
    const body = {
      thresholds: [
        { dimension: 1, score: 4, description: 'Money' },
        { dimension: 0, score: 2, description: 'Time' },
      ],
    };
    expect(
      (await owner.put('/config/impact-thresholds', body)).json.result.map((x: { dimension: number }) => x.dimension),
    ).toEqual([0, 1]);
    expect((await owner.get('/config/impact-thresholds')).json.result).toHaveLength(2);
    expect(
      await owner.put('/config/impact-thresholds', { thresholds: [body.thresholds[0], body.thresholds[0]] }),
    ).toAnswer(400);
    const member = as(ctx.memberA);
    expect(await member.get('/bia')).toAnswer(200);
    expect(await member.post('/bia', { title: 'Nope' })).toAnswer(403);
    // A tenant that never set its own gets the documented default scale.
    expect(
      (await as(ctx.ownerB).get('/config/impact-thresholds')).json.result.map((x: { score: number }) => x.score),
    ).toEqual([1, 2, 3, 4, 5]);
  });
});
