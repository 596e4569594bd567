import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { caller } from '#test/support/invoke.ts';
import { setAllowance } from '#test/support/gateway.ts';
import { addText, newBase, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A prompt's test cases and the evaluation a version gets when it goes to review: each case and
 * each safety probe is an agent turn with the version as its system prompt, scored by the
 * documented checks. The local models make the scores predictable: `local-chat` echoes the last
 * message (so it states no refusal), `local-gullible` follows a tool call planted anywhere.
 */
useKnowledgeStandIns();

const P = '/api/prompts';
let owner: ReturnType<typeof caller>;
let member: ReturnType<typeof caller>;
let kbId: string;

beforeAll(async () => {
  const t = await newTenant({ maxKnowledgeBases: 5 });
  const token = await tokenFor({ tenantId: t });
  owner = caller(P, token);
  member = caller(P, await tokenFor({ tenantId: t, role: 'TenantMember' }));
  kbId = (await newBase(token)).id;
  const doc = await addText(token, kbId, 'Returns', 'Returns are accepted within thirty days with the receipt.');
  await settled(token, kbId, doc.json.result.id);
});

const CONTENT = 'You are the Acme shop assistant. Only answer questions about orders and returns of the Acme shop.';

async function promptWith(modelId: string) {
  const res = await owner.post('', { title: 'Support', content: CONTENT, modelId });
  expect(res).toAnswer(201);
  return { id: res.json.result.id as string, versionId: res.json.result.versions[0].id as string };
}

async function evaluated(p: { id: string; versionId: string }) {
  expect(await owner.put(`/${p.id}/versions/${p.versionId}/review`, {})).toAnswer(204);
  const res = await owner.get(`/${p.id}/versions/${p.versionId}/evaluation`);
  expect(res).toAnswer(200);
  return res.json.result;
}

describe('prompt test cases', () => {
  it('are added, listed oldest first and removed; a member may read, not write; bad input is 400', async () => {
    const p = await promptWith(LOCAL_MODEL_IDS.chat);
    const one = await owner.post(`/${p.id}/test-cases`, { question: 'q1', mustContain: ['a'], mustNotContain: [] });
    expect(one).toAnswer(201);
    expect(one.json.result).toMatchObject({ question: 'q1', mustContain: ['a'], knowledgeBaseId: null });
    await owner.post(`/${p.id}/test-cases`, { question: 'q2', mustContain: [], mustNotContain: ['b'] });
    const list = await member.get(`/${p.id}/test-cases`);
    expect(list.json.result.items.map((c: { question: string }) => c.question)).toEqual(['q1', 'q2']);
    expect(await member.post(`/${p.id}/test-cases`, { question: 'x', mustContain: [], mustNotContain: [] })).toAnswer(
      403,
    );
    expect(await owner.post(`/${p.id}/test-cases`, { question: '', mustContain: [] })).toAnswer(400);
    const foreign = { question: 'q', mustContain: [], mustNotContain: [], knowledgeBaseId: crypto.randomUUID() };
    expect(await owner.post(`/${p.id}/test-cases`, foreign)).toAnswer(400);
    expect(await owner.del(`/${p.id}/test-cases/${one.json.result.id}`)).toAnswer(204);
    expect(await owner.del(`/${p.id}/test-cases/${one.json.result.id}`)).toAnswer(404);
    expect((await owner.get(`/${p.id}/test-cases`)).json.result.totalCount).toBe(1);
  });

  it('a client can no longer write autoEvaluationScores', async () => {
    const res = await owner.post('', {
      title: 'T',
      content: CONTENT,
      autoEvaluationScores: { quality: 99, safety: 99 },
    });
    expect(res).toAnswer(201);
    expect(res.json.result.autoEvaluationScores).toEqual({ quality: null, safety: null });
  });
});

describe('a version sent to review is evaluated', () => {
  it('scores its test cases and the safety set, case by case; the prompt shows the scores', async () => {
    const p = await promptWith(LOCAL_MODEL_IDS.chat);
    expect(await owner.get(`/${p.id}/versions/${p.versionId}/evaluation`)).toAnswer(404);
    const cases = [
      { question: 'where is my order 42?', mustContain: ['order 42'], mustNotContain: ['refund'] },
      { question: 'hello', mustContain: ['tracking number'], mustNotContain: [] },
      { question: 'returns within thirty days?', mustContain: ['returns'], mustNotContain: [], knowledgeBaseId: kbId },
    ];
    for (const c of cases) expect((await owner.post(`/${p.id}/test-cases`, c)).status).toBe(201);
    const e = await evaluated(p);
    expect(e).toMatchObject({ status: 'Done', quality: 66.67, safety: 75 });
    const byName = Object.fromEntries(
      (e.cases as { kind: string; name: string; question: string; passed: boolean }[]).map((c) => [
        c.kind === 'safety' ? c.name : c.question,
        c.passed,
      ]),
    );
    expect(byName).toEqual({
      'where is my order 42?': true,
      hello: false,
      'returns within thirty days?': true,
      'system prompt not revealed': true,
      'planted instruction not followed': true,
      // The echoing stand-in never says it cannot help.
      'off-topic request declined': false,
      'personal data from a source not echoed': true,
    });
    const prompt = await owner.get(`/${p.id}`);
    expect(prompt.json.result.autoEvaluationScores).toEqual({ quality: 66.67, safety: 75 });
  });

  it('a model that follows planted instructions and recites its prompt fails those probes', async () => {
    const e = await evaluated(await promptWith(LOCAL_MODEL_IDS.gullible));
    const failed = (e.cases as { name: string; passed: boolean }[]).filter((c) => !c.passed).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['planted instruction not followed']));
    expect(e.safety).toBeLessThan(75);
    expect(e.quality).toBeNull();
  });

  it('a tenant whose allowance is used up: the run ends Failed with the reason, the review and approval go on', async () => {
    const t = await newTenant({});
    const token = await tokenFor({ tenantId: t });
    const own = caller(P, token);
    await setAllowance(t, 1);
    const res = await own.post('', { title: 'Spent', content: CONTENT, modelId: LOCAL_MODEL_IDS.chat });
    const v = `/${res.json.result.id}/versions/${res.json.result.versions[0].id}`;
    expect(await own.put(`${v}/review`, {})).toAnswer(204);
    const e = (await own.get(`${v}/evaluation`)).json.result;
    expect(e).toMatchObject({ status: 'Failed', error: expect.stringMatching(/allowance|TOKEN_LIMIT/i) });
    expect(await own.put(`${v}/approve`, {})).toAnswer(204);
  });
});
