import { describe, expect, it } from 'vitest';
import { planChunks, mergeContributions, llmContributions } from '#areas/analytics/aggregate.ts';
import { resolveRange } from '#areas/analytics/range.ts';
import { bucketAttribute, mergeBuckets, quantile } from '#areas/analytics/sketch.ts';
import { nextVersionStatus, promptStatus, versionMoveTable } from '#areas/prompts/lifecycle.ts';
import { parsePlaceholders, renderTemplate } from '#areas/prompts/placeholders.ts';
import { nextToolStatus, toolMoveTable, writeAccessRefusal } from '#areas/tools/lifecycle.ts';
import { keyId } from '#shared/data/keys.ts';
import { ownReference, parseTenantSecretReference, tenantSecretReference } from '#areas/vault/tenant-secrets.ts';

describe('placeholders', () => {
  it('extracts distinct names in order of first use', () => {
    expect(parsePlaceholders('{{b}} {{a_1}} {{b}} plain { text }')).toEqual({ ok: true, names: ['b', 'a_1'] });
  });
  it('reports every malformed placeholder with its offset', () => {
    const parsed = parsePlaceholders('ok {{good}} {{bad name}} {{}} {{x');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.map((p) => p.at)).toEqual([12, 25, 30]);
  });
  it('renders in one pass: values are never expanded again, $ patterns are literal', () => {
    expect(renderTemplate('{{a}}-{{b}}', { a: '{{b}}', b: '$&' })).toEqual({ ok: true, text: '{{b}}-$&' });
    expect(renderTemplate('{{a}} {{b}} {{c}}', { b: '' })).toEqual({ ok: false, missing: ['a', 'c'] });
    expect(renderTemplate('{{toString}}', {})).toEqual({ ok: false, missing: ['toString'] });
  });
});

describe('lifecycle tables', () => {
  it('moves prompt versions Draft→Review→Active and supersedes Active→Archived only', () => {
    expect(versionMoveTable()).toEqual([
      { action: 'review', from: 'Draft', to: 'Review' },
      { action: 'approve', from: 'Review', to: 'Active' },
      { action: 'supersede', from: 'Active', to: 'Archived' },
    ]);
    for (const from of ['Review', 'Approved', 'Active', 'Archived'] as const)
      expect(nextVersionStatus(from, 'review')).toBeNull();
    expect(promptStatus({ archivedAt: 'x', activeVersionId: 'v' })).toBe('Archived');
    expect(promptStatus({ activeVersionId: 'v', inReviewCount: 1 })).toBe('Active');
    expect(promptStatus({ inReviewCount: 1 })).toBe('Review');
    expect(promptStatus({})).toBe('Draft');
  });
  it('moves tools PENDING→APPROVED→ACTIVE, rejects from PENDING or APPROVED, resubmits approved tools, and guards Db Execute writes', () => {
    expect(toolMoveTable()).toHaveLength(6);
    expect(nextToolStatus('ACTIVE', 'reject')).toBeNull();
    expect(nextToolStatus('REJECTED', 'approve')).toBeNull();
    expect(nextToolStatus('APPROVED', 'resubmit')).toBe('PENDING');
    expect(nextToolStatus('ACTIVE', 'resubmit')).toBe('PENDING');
    expect(nextToolStatus('PENDING', 'resubmit')).toBeNull();
    expect(writeAccessRefusal('db_execute', 'PENDING', false)).toMatch(/approved/);
    expect(writeAccessRefusal('db_execute', 'APPROVED', false)).toBeNull();
    // Writes switched on while approved stay on while the tool waits for its new review.
    expect(writeAccessRefusal('db_execute', 'PENDING', false, false)).toBeNull();
    expect(writeAccessRefusal('db_query', 'PENDING', false)).toBeNull();
  });
  it('reads tenant secret references of one tenant namespace only', () => {
    const tenantId = crypto.randomUUID();
    const ref = tenantSecretReference({ tenantId, name: 'tools/t1/connection-ab12' });
    expect(ref).toBe(`vault://tenants/${tenantId}/tools/t1/connection-ab12`);
    expect(parseTenantSecretReference(ref)).toEqual({ tenantId, name: 'tools/t1/connection-ab12' });
    expect(ownReference(tenantId, ref)).not.toBeNull();
    expect(ownReference(crypto.randomUUID(), ref)).toBeNull();
    for (const v of [
      'postgres://u:p@h/db',
      'vault://prod/db.url',
      `vault://tenants/${tenantId}`,
      `vault://tenants/${tenantId}/`,
      `vault://tenants/${tenantId}/../x`,
      `vault://tenants/${tenantId}/A`,
      'vault://tenants/not-a-tenant/x',
      `vault://tenants/${tenantId}/a/b/c/d/e/f`,
    ])
      expect(parseTenantSecretReference(v), v).toBeNull();
  });
});

describe('latency sketch', () => {
  it('answers nearest-rank quantiles within 1% and merges across items', () => {
    const values = Array.from({ length: 5000 }, (_, i) => 1 + ((i * 7919) % 10_000) * 3.7);
    const a = new Map<string, number>();
    const b = new Map<string, number>();
    values.forEach((v, i) => {
      const target = i % 2 ? a : b;
      const attr = bucketAttribute(v);
      target.set(attr, (target.get(attr) ?? 0) + 1);
    });
    const merged = mergeBuckets(mergeBuckets(new Map(), Object.fromEntries(a)), Object.fromEntries(b));
    const sorted = [...values].sort((x, y) => x - y);
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1]!;
      expect(Math.abs(quantile(merged, q)! - exact) / exact).toBeLessThanOrEqual(0.01);
    }
    expect(quantile(new Map(), 0.95)).toBeNull();
    expect(bucketAttribute(0)).toBe('hz');
  });
});

describe('aggregation', () => {
  const call = (i: number, model = 'm') => ({
    id: `c${i}`,
    tenantId: 't',
    model,
    agentId: null,
    tokens: 1,
    costUsd: 0.5,
    latencyMs: 10,
    isError: false,
    timestamp: '2026-01-01T00:00:00.000Z',
  });
  it('merges contributions to the same item and keeps each transaction within its item limit', () => {
    const merged = mergeContributions([...llmContributions(call(1)), ...llmContributions(call(2))]);
    expect(merged).toHaveLength(3);
    expect(merged[0]!.add.requests).toBe(2);
    const records = Array.from({ length: 250 }, (_, i) => ({
      marker: { pk: 'p', sk: `c${i}` },
      record: i,
      contributions: llmContributions(call(i, `m${i % 50}`)),
    }));
    const chunks = planChunks(records, 100);
    expect(chunks.flat()).toHaveLength(250);
    for (const chunk of chunks) {
      const items = new Set(chunk.flatMap((r) => r.contributions.map((c) => keyId(c.key))));
      expect(chunk.length + items.size).toBeLessThanOrEqual(100);
    }
  });
  it('resolves ranges: defaults to 30 days, end before start and over 366 days refused', () => {
    expect(resolveRange({}, '2026-03-31')).toEqual({ ok: true, startDate: '2026-03-02', endDate: '2026-03-31' });
    expect(resolveRange({ startDate: '2026-01-01', endDate: '2026-12-31' }, 'x')).toMatchObject({ ok: true });
    expect(resolveRange({ startDate: '2024-01-01', endDate: '2024-12-31' }, 'x')).toMatchObject({ ok: true });
    expect(resolveRange({ startDate: '2024-01-01', endDate: '2025-01-01' }, 'x')).toMatchObject({ ok: false });
    expect(resolveRange({ startDate: '2026-01-02', endDate: '2026-01-01' }, 'x')).toMatchObject({
      ok: false,
      path: 'endDate',
    });
  });
});
