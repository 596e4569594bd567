import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

const T = '/api/tools';
let ctx: Awaited<ReturnType<typeof twoTenants>>;

beforeAll(async () => {
  ctx = await twoTenants();
});

const newTool = async () => {
  const res = await invoke('POST', T, {
    token: ctx.ownerA,
    body: { displayName: 'Orders lookup', baseToolId: BUILT_IN_TOOLS.find((b) => b.code === 'db_query')!.id },
  });
  expect(res).toAnswer(201);
  return res.json.result as { id: string };
};

describe('GET /api/tools/{toolId}', () => {
  it('answers the detail the list item shows, with step 1 inside it', async () => {
    const tool = await newTool();
    const res = await invoke('GET', `${T}/${tool.id}`, { token: ctx.memberA });
    expect(res).toAnswer(200);
    const list = await invoke('GET', `${T}?pageSize=100`, { token: ctx.memberA });
    const item = list.json.result.items.find((t: { id: string }) => t.id === tool.id);
    expect(res.json.result).toEqual(item);
    const config = await invoke('GET', `${T}/${tool.id}/config`, { token: ctx.memberA });
    expect(res.json.result).toMatchObject(config.json.result);
  });

  it("is 404 for another tenant's tool and after a delete, 400 for an id that is not a UUID", async () => {
    const tool = await newTool();
    expect(await invoke('GET', `${T}/${tool.id}`, { token: ctx.ownerB })).toAnswer(404, 'NOT_FOUND');
    expect(await invoke('GET', `${T}/not-a-uuid`, { token: ctx.ownerA })).toAnswer(400, 'VALIDATION_ERROR');
    expect(await invoke('DELETE', `${T}/${tool.id}`, { token: ctx.ownerA })).toAnswer(204);
    expect(await invoke('GET', `${T}/${tool.id}`, { token: ctx.ownerA })).toAnswer(404, 'NOT_FOUND');
  });

  it('a SystemAdmin reads it by its id alone', async () => {
    const tool = await newTool();
    expect(await invoke('GET', `${T}/${tool.id}`, { token: ctx.admin })).toAnswer(200);
  });
});
