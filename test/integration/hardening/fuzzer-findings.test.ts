import { beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_KEY } from '#test/support/fuzz/world.ts';
import { twoTenants } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';

let ctx: Awaited<ReturnType<typeof twoTenants>>;
beforeAll(async () => {
  ctx = await twoTenants();
});

const details = (res: { json: { error: { details: { path: string; message: string }[] } } }) => res.json.error.details;

describe('a stats date that is not a date', () => {
  it.each(['bad', '2026-13-01', '2026-02-30', ''])('%j is one 400 issue for its field, not two', async (startDate) => {
    for (const path of ['/api/analytics/llm', '/api/analytics/support']) {
      const res = await invoke('GET', `${path}?startDate=${encodeURIComponent(startDate)}`, { token: ctx.ownerA });
      expect(res, path).toAnswer(400, 'VALIDATION_ERROR');
      expect(
        details(res).filter((d) => d.path === 'query.startDate'),
        path,
      ).toHaveLength(1);
    }
  });
});

describe('analytics events naming a tenant that does not exist', () => {
  it('answer 400 VALIDATION_ERROR at the first place the tenant appears, as the route documents', async () => {
    const tenantId = crypto.randomUUID();
    const res = await invoke('POST', '/api/analytics/events', {
      headers: { 'x-internal-api-key': INTERNAL_KEY },
      body: {
        llmCalls: [],
        conversations: [
          {
            id: crypto.randomUUID(),
            tenantId,
            startedAt: '2026-01-01T10:00:00.000Z',
            durationSeconds: 300,
            resolved: true,
            escalated: false,
          },
        ],
      },
    });
    expect(res).toAnswer(400, 'VALIDATION_ERROR');
    expect(details(res)).toEqual([
      { path: 'body.conversations.0.tenantId', message: expect.stringMatching(/tenant/i) },
    ]);
  });
});
