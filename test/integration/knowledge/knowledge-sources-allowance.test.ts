import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ApiError } from '#shared/http/errors.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import { KB, newBase, useKnowledgeStandIns } from '#test/support/knowledge.ts';
import { articlePage, startLoopbackSite } from '#test/support/loopback-site.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A sync that runs out of the month's token allowance: its pages' embeddings are the gateway's, as an
 * upload's are, so a refusal stops the sync with the gateway's reason, and the next sync resumes.
 */
const refusal = vi.hoisted(() => ({ on: false, calls: 0 }));
vi.mock('#areas/llm-gateway/embed.ts', async (original) => {
  const real = await original<typeof import('#areas/llm-gateway/embed.ts')>();
  return {
    ...real,
    embed: async (call: Parameters<typeof real.embed>[0]) => {
      refusal.calls++;
      if (refusal.on) throw new ApiError(429, 'TOKEN_LIMIT_REACHED', "The tenant's monthly token allowance is used up");
      return real.embed(call);
    },
  };
});
vi.stubEnv('LOCAL_ALLOW_LOOPBACK_TARGETS', '1');
vi.stubEnv('KNOWLEDGE_SOURCE_PACE_MS', '0');
useKnowledgeStandIns();

let owner: string;
let site: Awaited<ReturnType<typeof startLoopbackSite>>;
beforeAll(async () => {
  owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 1 }) });
  site = await startLoopbackSite();
});
afterAll(() => site.close());

it('stops with the allowance reason, keeps what it had, and resumes on the next sync', async () => {
  const pages = ['a', 'b', 'c', 'd'];
  site.pages.set('/', {
    body: articlePage(
      'Home',
      'The zqhome page.',
      pages.map((p) => `/${p}`),
    ),
  });
  for (const p of pages) site.pages.set(`/${p}`, { body: articlePage(p, `Page zq${p}.`) });
  const kbId = (await newBase(owner)).id;
  const created = await invoke('POST', `${KB}/${kbId}/sources`, {
    token: owner,
    body: { type: 'web', name: 'Site', settings: { startUrls: [`${site.origin}/`] } },
  });
  expect(created).toAnswer(201);
  const path = `${KB}/${kbId}/sources/${created.json.result.id}`;

  refusal.on = true;
  expect(await invoke('POST', `${path}/sync`, { token: owner })).toAnswer(202);
  const stopped = (await invoke('GET', path, { token: owner })).json.result;
  expect(stopped).toMatchObject({ syncStatus: 'Stopped', progress: { pagesSeen: 1, changed: 1 } });
  expect(stopped.syncError).toMatch(/token allowance is used up.*resumes with the next sync/);
  // One page was tried; the sync read no further.
  expect(site.asked().filter((p) => pages.some((x) => p === `/${x}`))).toEqual([]);

  refusal.on = false;
  const before = refusal.calls;
  expect(await invoke('POST', `${path}/sync`, { token: owner })).toAnswer(202);
  const resumed = (await invoke('GET', path, { token: owner })).json.result;
  expect(resumed).toMatchObject({
    syncStatus: 'Completed',
    syncError: null,
    pageCount: 5,
    progress: { pagesSeen: 5, changed: 5 },
  });
  expect(refusal.calls - before).toBe(5);
  const docs = (await invoke('GET', `${KB}/${kbId}/documents`, { token: owner, query: { pageSize: 100 } })).json.result;
  // The refused version was dropped: five pages, five Indexed documents.
  expect(docs.items.map((d: { status: string }) => d.status)).toEqual(Array(5).fill('Indexed'));
});
