import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '#shared/data/keys.ts';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { listNewestFirst } from '#shared/data/collection.ts';

const P = '/api/prompts';
let ctx: Awaited<ReturnType<typeof twoTenants>>;
const as = (token: string) => caller(P, token);
let owner: ReturnType<typeof as>;

beforeAll(async () => {
  ctx = await twoTenants();
  owner = as(ctx.ownerA);
});

const newPrompt = async (body: Record<string, unknown> = {}) => {
  const res = await owner.post('', {
    title: `Prompt ${crypto.randomUUID().slice(0, 6)}`,
    content: 'Hello {{name}}, you asked about {{topic}}.',
    ...body,
  });
  expect(res).toAnswer(201);
  return res.json.result as {
    id: string;
    versions: { id: string; versionNumber: string; status: string }[];
    lifecycleStatus: string;
  };
};
const newVersion = async (id: string, note = 'next') => {
  const res = await owner.post(`/${id}/new-version`, { versionNote: note });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; versionNumber: string; status: string; changedBy: string };
};
const auditOf = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items;

describe('prompts', () => {
  it('create stores the fields, extracts placeholders and makes version 1 a Draft', async () => {
    const p = await owner.post('', {
      title: 'Greeter',
      content: 'Hi {{first_name}} {{last_name}}, {{first_name}}!',
      temperature: 1.5,
      tags: ['support', 'greeting'],
      modelId: LOCAL_MODEL_IDS.chat,
      abTestConfig: { variantA: true, variantB: false },
      autoEvaluationScores: { quality: 87.5, safety: 99 },
      lifecycleStatus: 'Active',
      versionCount: 99,
    });
    expect(p).toAnswer(201);
    const r = p.json.result;
    expect(r).toMatchObject({
      title: 'Greeter',
      temperature: 1.5,
      tags: ['support', 'greeting'],
      placeholders: ['first_name', 'last_name'],
      lifecycleStatus: 'Draft',
      versionCount: 1,
      activeVersionId: null,
    });
    // Read-only: a running A/B test sets abTestConfig, the latest evaluation autoEvaluationScores.
    expect(r.abTestConfig).toEqual({ variantA: false, variantB: false });
    expect(r.autoEvaluationScores).toEqual({ quality: null, safety: null });
    expect(r.versions).toHaveLength(1);
    expect(r.versions[0]).toMatchObject({
      versionNumber: '1',
      status: 'Draft',
      content: 'Hi {{first_name}} {{last_name}}, {{first_name}}!',
    });
    expect((await owner.get(`/${r.id}`)).json.result).toEqual(r);
    expect((await auditOf(r.id)).map((a) => a.action)).toEqual(['create']);
  });

  it('refuses malformed placeholders, out-of-range temperature, too many tags and content over 100 KB (400)', async () => {
    for (const content of ['Hi {{first name}}', 'Hi {{name', 'Hi {{}}', 'a {{ok}} b {{bad-name}}', 'Hi {{na{{me}}']) {
      const res = await owner.post('', { title: 'Bad', content });
      expect(res, content).toAnswer(400);
      expect(res.json.error.details[0].path).toBe('body.content');
    }
    expect(await owner.post('', { title: 'T', content: 'x', temperature: 2.1 })).toAnswer(400);
    expect(await owner.post('', { title: 'T', content: 'x', temperature: -0.1 })).toAnswer(400);
    expect(
      await owner.post('', { title: 'T', content: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
    ).toAnswer(400);
    expect(
      await owner.post('', { title: 'T', content: 'x', tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }),
    ).toAnswer(201);
    expect(await owner.post('', { title: 'T', content: 'é'.repeat(51_201) })).toAnswer(400);
    expect(await owner.post('', { title: 'T', content: 'x'.repeat(100 * 1024) })).toAnswer(201);
    // Numbers below DynamoDB's smallest magnitude (1e-130) are stored rounded, not refused by the table.
    const tiny = await owner.post('', {
      title: 'T',
      content: 'x',
      temperature: 1e-200,
    });
    expect(tiny).toAnswer(201);
    expect(tiny.json.result).toMatchObject({ temperature: 0 });
    const p = await newPrompt();
    const bad = await owner.put(`/${p.id}`, { content: '{{oops' });
    expect(bad).toAnswer(400);
    expect((await owner.get(`/${p.id}`)).json.result.content).toBe('Hello {{name}}, you asked about {{topic}}.');
  });

  it('update changes the working text only; new-version snapshots it with the next number and the caller', async () => {
    const p = await newPrompt();
    const up = await owner.put(`/${p.id}`, { content: 'Dear {{customer}}', title: 'Renamed' });
    expect(up).toAnswer(200);
    expect(up.json.result).toMatchObject({ title: 'Renamed', placeholders: ['customer'], versionCount: 1 });
    expect(up.json.result.versions[0].content).toBe('Hello {{name}}, you asked about {{topic}}.');
    const v2 = await newVersion(p.id, 'customer wording');
    expect(v2).toMatchObject({
      versionNumber: '2',
      status: 'Draft',
      content: 'Dear {{customer}}',
      placeholders: ['customer'],
      versionNote: 'customer wording',
    });
    expect(v2.changedBy).toContain('@');
    const detail = (await owner.get(`/${p.id}`)).json.result;
    expect(detail.versions.map((v: { versionNumber: string }) => v.versionNumber)).toEqual(['2', '1']);
    expect(detail.versionCount).toBe(2);
    expect((await auditOf(p.id)).map((a) => a.action).sort()).toEqual(['create', 'update']);
    expect((await auditOf(v2.id)).map((a) => a.action)).toEqual(['create']);
  });

  it('lists versions newest first with paging', async () => {
    const p = await newPrompt();
    for (let i = 0; i < 4; i++) await newVersion(p.id, `v${i + 2}`);
    const page1 = await owner.get(`/${p.id}/versions?pageSize=2`);
    expect(page1.json.result).toMatchObject({ totalCount: 5, totalPages: 3, page: 1, pageSize: 2 });
    expect(page1.json.result.items.map((v: { versionNumber: string }) => v.versionNumber)).toEqual(['5', '4']);
    const page3 = await owner.get(`/${p.id}/versions?pageSize=2&page=3`);
    expect(page3.json.result.items.map((v: { versionNumber: string }) => v.versionNumber)).toEqual(['1']);
    expect((await owner.get(`/${p.id}/versions?pageSize=2&page=4`)).json.result.items).toEqual([]);
  });

  it('moves versions along the lifecycle table only: Draft→Review→Active, the previous Active → Archived; others 409', async () => {
    const p = await newPrompt();
    const v1 = p.versions[0]!.id;
    const review = (v: string) => owner.put(`/${p.id}/versions/${v}/review`);
    const approve = (v: string) => owner.put(`/${p.id}/versions/${v}/approve`);
    expect(await approve(v1)).toAnswer(409);
    const r1 = await review(v1);
    expect(r1).toAnswer(204);
    expect((await owner.get(`/${p.id}`)).json.result.lifecycleStatus).toBe('Review');
    expect(await review(v1)).toAnswer(409);
    expect(await approve(v1)).toAnswer(204);
    let detail = (await owner.get(`/${p.id}`)).json.result;
    expect(detail).toMatchObject({ lifecycleStatus: 'Active', activeVersionId: v1 });
    expect(detail.versions[0].status).toBe('Active');
    for (const res of [await review(v1), await approve(v1)]) expect(res.status).toBe(409);

    const v2 = (await newVersion(p.id)).id;
    expect(await approve(v2)).toAnswer(409);
    expect(await review(v2)).toAnswer(204);
    expect(await approve(v2)).toAnswer(204);
    detail = (await owner.get(`/${p.id}`)).json.result;
    expect(detail.activeVersionId).toBe(v2);
    expect(detail.versions.map((v: { status: string }) => v.status)).toEqual(['Active', 'Archived']);
    for (const res of [await review(v1), await approve(v1)]) expect(res.status).toBe(409);
    expect(await review(crypto.randomUUID())).toAnswer(404);
    expect((await auditOf(v2)).map((a) => a.action).sort()).toEqual(['approve', 'create', 'review']);
  });

  // Two approvals that overlap: one wins and the other is 409. When they happen to run one after
  // the other, both succeed and the first is Archived. Either way exactly one version is Active.
  it('of two Review versions approved at once, exactly one ends Active', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await newPrompt();
      const a = (await newVersion(p.id)).id;
      const b = (await newVersion(p.id)).id;
      await owner.put(`/${p.id}/versions/${a}/review`);
      await owner.put(`/${p.id}/versions/${b}/review`);
      const statuses = (await Promise.all([a, b].map((v) => owner.put(`/${p.id}/versions/${v}/approve`)))).map(
        (r) => r.status,
      );
      expect(statuses.every((s) => s === 204 || s === 409) && statuses.includes(204)).toBe(true);
      const detail = (await owner.get(`/${p.id}`)).json.result;
      const byStatus = (status: string) =>
        detail.versions.filter((v: { status: string }) => v.status === status).map((v: { id: string }) => v.id);
      expect(byStatus('Active')).toEqual([detail.activeVersionId]);
      // The loser is Review again (409) or Archived (approved first, then superseded): never a second Active.
      const loser = detail.activeVersionId === a ? b : a;
      expect(byStatus(statuses.includes(409) ? 'Review' : 'Archived')).toContain(loser);
    }
  });

  it('DELETE archives: hidden from the list unless asked for, read-only, a second DELETE changes nothing', async () => {
    const p = await newPrompt({ title: 'To archive' });
    const listed = async (q = '') =>
      ((await owner.get(`?pageSize=100${q}`)).json.result.items as { id: string }[]).map((i) => i.id);
    const before = (await owner.get('?pageSize=1')).json.result.totalCount;
    expect(await listed()).toContain(p.id);
    expect(await owner.del(`/${p.id}`)).toAnswer(204);
    expect(await listed()).not.toContain(p.id);
    expect((await owner.get('?pageSize=1')).json.result.totalCount).toBe(before - 1);
    const all = await owner.get('?pageSize=100&includeArchived=true');
    expect(all.json.result.items.find((i: { id: string }) => i.id === p.id)?.lifecycleStatus).toBe('Archived');
    expect(all.json.result.totalCount).toBe(before);
    const got = await owner.get(`/${p.id}`);
    expect(got).toAnswer(200);
    expect(got.json.result.lifecycleStatus).toBe('Archived');
    expect(await owner.put(`/${p.id}`, { title: 'x' })).toAnswer(409);
    expect(await owner.post(`/${p.id}/new-version`, {})).toAnswer(409);
    expect(await owner.put(`/${p.id}/versions/${p.versions[0]!.id}/review`)).toAnswer(409);
    expect(await owner.post(`/${p.id}/render`, { variables: { name: 'a', topic: 'b' } })).toAnswer(409);
    expect(await owner.del(`/${p.id}`)).toAnswer(204);
    expect((await auditOf(p.id)).map((a) => a.action).sort()).toEqual(['archive', 'create']);
  });

  it('renders the Active version or a named one; missing variables are 400 by name; values are literal', async () => {
    const p = await newPrompt({ content: 'Hello {{name}}, about {{topic}}: {{name}}.' });
    const v1 = p.versions[0]!.id;
    const render = (body: unknown) => owner.post(`/${p.id}/render`, body);
    expect(await render({ variables: { name: 'Ann', topic: 'x' } })).toAnswer(409);
    const named = await render({ variables: { name: 'Ann', topic: 'billing' }, versionId: v1 });
    expect(named).toAnswer(200);
    expect(named.json.result).toEqual({
      promptId: p.id,
      versionId: v1,
      versionNumber: '1',
      text: 'Hello Ann, about billing: Ann.',
    });
    await owner.put(`/${p.id}/versions/${v1}/review`);
    await owner.put(`/${p.id}/versions/${v1}/approve`);
    const literal = await render({ variables: { name: '{{topic}}', topic: '$& {{name}} $1' } });
    expect(literal.json.result.text).toBe('Hello {{topic}}, about $& {{name}} $1: {{topic}}.');
    const missing = await render({ variables: { name: 'Ann' } });
    expect(missing).toAnswer(400);
    expect(missing.json.error.details).toEqual([
      { path: 'body.variables.topic', message: 'Missing value for placeholder {{topic}}' },
    ]);
    expect(await render({ variables: {}, versionId: crypto.randomUUID() })).toAnswer(404);
    expect(await render({ variables: { name: 1 } })).toAnswer(400);
  });

  it('is scoped to the tenant: another tenant gets 404, a member reads but cannot write, a SystemAdmin reaches it by id', async () => {
    const p = await newPrompt();
    const b = as(ctx.ownerB);
    expect(await b.get(`/${p.id}`)).toAnswer(404);
    expect(await b.put(`/${p.id}`, { title: 'x' })).toAnswer(404);
    expect(await b.post(`/${p.id}/render`, { variables: {} })).toAnswer(404);
    expect(await b.put(`/${p.id}/versions/${p.versions[0]!.id}/review`)).toAnswer(404);
    expect(((await b.get('?pageSize=100')).json.result.items as { id: string }[]).map((i) => i.id)).not.toContain(p.id);
    const member = as(ctx.memberA);
    expect(await member.get(`/${p.id}`)).toAnswer(200);
    expect(await member.put(`/${p.id}`, { title: 'x' })).toAnswer(403);
    const admin = as(ctx.admin);
    expect((await admin.get(`/${p.id}`)).json.result.id).toBe(p.id);
    expect(await admin.get(`/${p.id}?tenantId=${ctx.tenantB}`)).toAnswer(404);
  });
});
