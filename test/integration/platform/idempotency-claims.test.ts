import { describe, expect, it } from 'vitest';
import { commitChange, orConflict } from '#shared/data/commit.ts';
import { claim, claimItem, done, held, readClaim, release, releaseItem, resultOf } from '#shared/data/idempotency.ts';
import { keys } from '#shared/data/keys.ts';

const LIVE = { leaseMs: 60_000, ttlSeconds: 3600 };
const newKey = () => keys.messageClaim('claims-test', crypto.randomUUID());

describe('idempotency claims', () => {
  it('claimed once; a repeat sees it in progress, then done with the result', async () => {
    const key = newKey();
    expect(await claim(key, { ...LIVE, data: { bodyHash: 'a' } })).toEqual({ kind: 'claimed' });
    const busy = await claim(key, { ...LIVE, data: { bodyHash: 'b' } });
    expect(busy).toMatchObject({ kind: 'in-progress', claim: { status: 'processing', data: { bodyHash: 'a' } } });
    await done(key, { paid: 5, at: undefined });
    const repeat = await claim(key, LIVE);
    if (repeat.kind !== 'done') return expect.fail(`expected done, got ${repeat.kind}`);
    expect(resultOf(repeat.claim)).toEqual({ paid: 5 });
  });

  it('a released claim (deleted), or one whose lease ran out, is taken over', async () => {
    const key = newKey();
    await claim(key, { ...LIVE, data: { bodyHash: 'a' } });
    await release(key);
    expect(await readClaim(key)).toBeUndefined();
    expect(await claim(key, { ...LIVE, data: { bodyHash: 'b' } })).toEqual({ kind: 'claimed' });
    expect((await readClaim(key))?.data).toEqual({ bodyHash: 'b' });

    const stale = newKey();
    await claim(stale, { ...LIVE, leaseMs: -1 });
    expect(held((await readClaim(stale))!)).toBe(false);
    expect(await claim(stale, LIVE)).toEqual({ kind: 'claimed' });
    expect(held((await readClaim(stale))!)).toBe(true);
  });

  it('in a transaction it takes a new key only, so the other writes never repeat; released there it keeps its data; done at once when finished', async () => {
    const key = newKey();
    await commitChange([claimItem(key, { ...LIVE, data: { visitorMessageId: 'm-1' } })], null);
    await commitChange([releaseItem(key)], null);
    expect(await readClaim(key)).toMatchObject({ status: 'released', data: { visitorMessageId: 'm-1' } });
    await expect(commitChange([orConflict(claimItem(key, LIVE), 'taken')], null)).rejects.toMatchObject({
      status: 409,
      message: 'taken',
    });
    const finished = newKey();
    await commitChange([claimItem(finished, LIVE, { result: { answerId: null } })], null);
    const seen = (await readClaim(finished))!;
    expect([seen.status, resultOf(seen)]).toEqual(['done', { answerId: null }]);
  });
});
