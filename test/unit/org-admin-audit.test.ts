import { describe, expect, it } from 'vitest';
import { auditQueryInput, auditRange } from '#areas/admin/audit-logs.ts';

describe('audit-log query', () => {
  it('takes dates as whole UTC days and datetimes as instants', () => {
    expect(auditRange('2026-01-31', '2026-01-31')).toEqual({
      from: '2026-01-31T00:00:00.000Z',
      to: '2026-01-31T23:59:59.999Z#~',
    });
    expect(auditRange('2026-01-31T10:00:00+02:00', undefined)).toEqual({
      from: '2026-01-31T08:00:00.000Z',
      to: '9999#~',
    });
    expect(auditRange(undefined, '2026-01-31T10:00:00Z')).toEqual({ from: '0000', to: '2026-01-31T10:00:00.000Z#~' });
    expect(auditRange(undefined, undefined)).toBeUndefined();
    expect(() => auditRange('2026-02-01', '2026-01-31')).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('puts the range in the key condition and entityType in a filter', () => {
    const input = auditQueryInput({ startDate: '2026-01-31', entityType: 'Role' });
    expect(input).toMatchObject({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
      FilterExpression: '#entityType = :entityType',
      ExpressionAttributeValues: {
        ':pk': 'PLATFORM#AUDIT',
        ':entityType': 'Role',
        ':from': '2026-01-31T00:00:00.000Z',
      },
      ScanIndexForward: false,
    });
    const plain = auditQueryInput({});
    expect(plain.KeyConditionExpression).toBe('gsi1pk = :pk');
    expect(plain.FilterExpression).toBeUndefined();
  });
});
