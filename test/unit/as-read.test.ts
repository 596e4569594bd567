import { describe, expect, it } from 'vitest';
import { asRead, nextRevision } from '#shared/data/as-read.ts';
import { putItem } from '#shared/data/commit.ts';

describe('asRead, the one optimistic-concurrency condition', () => {
  it('holds the witness read, with the record state condition beside it', () => {
    expect(asRead({ updatedAt: '2026-12-02T06:00:00.000Z' }, 'updatedAt', 'attribute_not_exists(deletedAt)')).toEqual({
      condition: 'attribute_exists(pk) AND attribute_not_exists(deletedAt) AND updatedAt = :asRead',
      values: { ':asRead': '2026-12-02T06:00:00.000Z' },
    });
  });

  it('requires an item read without a revision to still have none, and bumps from 0', () => {
    expect(asRead({}, 'revision')).toEqual({
      condition: 'attribute_exists(pk) AND attribute_not_exists(revision)',
      values: {},
    });
    expect(nextRevision({})).toBe(1);
    expect(nextRevision({ revision: 4 })).toBe(5);
  });

  it('is taken by a Put as its condition, with no empty value map (DynamoDB refuses one)', () => {
    const put = putItem({ pk: 'p', sk: 's' }, asRead({}, 'revision')).Put!;
    expect(put.ConditionExpression).toBe('attribute_exists(pk) AND attribute_not_exists(revision)');
    expect(put).not.toHaveProperty('ExpressionAttributeValues');
  });
});
