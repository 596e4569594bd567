import { describe, expect, it } from 'vitest';
import { ttlCache } from '#areas/vault/cache.ts';
import { childName, environmentPattern, isValidKey, secretName, sourcePath, valueProblem } from '#areas/vault/rules.ts';
import { planSync } from '#areas/vault/sync.ts';
import { apiDocument } from '#api/openapi/api-document.ts';

describe('vault names and values', () => {
  it('accepts environments and keys by the issue patterns', () => {
    for (const env of ['prod', 'eu-west-1', 'a', 'x'.repeat(32)]) expect(environmentPattern().test(env)).toBe(true);
    for (const env of ['', 'Prod', 'a_b', 'a.b', 'x'.repeat(33), 'a/b'])
      expect(environmentPattern().test(env)).toBe(false);
    for (const key of ['DB_URL', 'a.b-c_d', 'k'.repeat(128), '...']) expect(isValidKey(key)).toBe(true);
    for (const key of ['', 'a/b', 'a b', 'k'.repeat(129), '.', '..', 'ключ']) expect(isValidKey(key)).toBe(false);
  });

  it('reserves the environment names a sibling route or the tenant namespace owns', () => {
    for (const env of ['sync', 'tenants']) expect(environmentPattern().test(env)).toBe(false);
    for (const env of ['syncs', 'tenant', 'sync-1', 'my-tenants']) expect(environmentPattern().test(env)).toBe(true);
  });

  it('documents the environment and key parameters exactly as the server checks them', () => {
    const doc = apiDocument() as unknown as {
      paths: Record<string, Record<string, { parameters: { name: string; schema: { pattern?: string } }[] }>>;
    };
    const params = doc.paths['/api/secrets/{environment}/{key}']!.put!.parameters;
    const documented = (name: string) => new RegExp(params.find((p) => p.name === name)!.schema.pattern!);
    const keys = [
      'DB_URL',
      'a.b-c_d',
      '...',
      '.a',
      'a.',
      '.',
      '..',
      '',
      'a/b',
      'k'.repeat(128),
      'k'.repeat(129),
      'ключ',
    ];
    for (const key of keys) expect(documented('key').test(key), key).toBe(isValidKey(key));
    const envs = [
      'prod',
      'sync',
      'tenants',
      'syncs',
      'syn',
      'tenant',
      'tenantz',
      'Prod',
      '',
      'x'.repeat(32),
      'x'.repeat(33),
    ];
    for (const env of envs) expect(documented('environment').test(env), env).toBe(environmentPattern().test(env));
  });

  it('counts the value limit in UTF-8 bytes and reserves the delete marker', () => {
    expect(valueProblem('')).toBe('empty');
    expect(valueProblem('x')).toBeNull();
    expect(valueProblem('x'.repeat(4096))).toBeNull();
    expect(valueProblem('x'.repeat(4097))).toBe('too-large');
    expect(valueProblem('é'.repeat(2048))).toBeNull(); // 4096 bytes
    expect(valueProblem('é'.repeat(2049))).toBe('too-large'); // 2049 characters, 4098 bytes
    expect(valueProblem('__deleted__')).toBe('reserved');
  });

  it('builds parameter names below the stage prefix', () => {
    expect(secretName('prod', 'DB_URL')).toBe('/saas/local/vault/prod/DB_URL');
    expect(sourcePath('prod')).toBe('/saas/local/vault-sources/prod');
    expect(childName('/a/vault/prod', '/a/vault/prod/K')).toBe('K');
    expect(childName('/a/vault/prod', '/a/vault/prod/x/K')).toBeNull();
    expect(childName('/a/vault/prod', '/a/vault/production/K')).toBeNull();
  });
});

describe('planSync', () => {
  const src = (key: string, value: string, lastModified = '2026-01-01T10:00:00.000Z') => ({
    name: `/saas/local/vault-sources/prod/${key}`,
    value,
    lastModified,
  });
  const cur = (key: string, value: string, lastModified: string) => ({
    name: `/saas/local/vault/prod/${key}`,
    value,
    lastModified,
  });

  it('imports keys the vault does not have', () => {
    expect(planSync('prod', [src('NEW', 'v')], [])).toEqual([{ key: 'NEW', action: 'import', value: 'v' }]);
  });

  it('keeps a vault value written at or after the source (live or deleted)', () => {
    const plan = planSync(
      'prod',
      [src('LATER', 'from-source'), src('SAME_TIME', 'from-source'), src('DELETED_LATER', 'from-source')],
      [
        cur('LATER', 'from-api', '2026-01-01T10:00:00.001Z'),
        cur('SAME_TIME', 'from-api', '2026-01-01T10:00:00.000Z'),
        cur('DELETED_LATER', '__deleted__', '2026-01-02T00:00:00.000Z'),
      ],
    );
    expect(plan.map((d) => [d.key, d.action])).toEqual([
      ['LATER', 'skip'],
      ['SAME_TIME', 'skip'],
      ['DELETED_LATER', 'skip'],
    ]);
  });

  it('overwrites an older vault value, restores an older deletion, and skips an identical one', () => {
    const plan = planSync(
      'prod',
      [src('OLD', 'new-value'), src('OLD_DELETED', 'back'), src('SAME', 'same')],
      [
        cur('OLD', 'old-value', '2025-12-31T00:00:00.000Z'),
        cur('OLD_DELETED', '__deleted__', '2025-12-31T00:00:00.000Z'),
        cur('SAME', 'same', '2025-12-31T00:00:00.000Z'),
      ],
    );
    expect(plan).toEqual([
      { key: 'OLD', action: 'import', value: 'new-value' },
      { key: 'OLD_DELETED', action: 'import', value: 'back' },
      { key: 'SAME', action: 'skip', reason: 'unchanged' },
    ]);
  });

  it('fails source entries that cannot be vault secrets, without their values', () => {
    const plan = planSync(
      'prod',
      [
        src('nested/KEY', 'v'),
        src('bad key', 'v'),
        src('EMPTY', ''),
        src('BIG', 'x'.repeat(4097)),
        src('MARKER', '__deleted__'),
      ],
      [],
    );
    expect(plan).toEqual([
      { key: 'nested/KEY', action: 'fail', reason: 'invalid-key' },
      { key: 'bad key', action: 'fail', reason: 'invalid-key' },
      { key: 'EMPTY', action: 'fail', reason: 'empty' },
      { key: 'BIG', action: 'fail', reason: 'too-large' },
      { key: 'MARKER', action: 'fail', reason: 'reserved' },
    ]);
  });

  it('ignores vault parameters of other environments', () => {
    const plan = planSync(
      'prod',
      [src('K', 'v')],
      [{ name: '/saas/local/vault/prod-eu/K', value: 'x', lastModified: '2030-01-01T00:00:00.000Z' }],
    );
    expect(plan).toEqual([{ key: 'K', action: 'import', value: 'v' }]);
  });
});

describe('ttlCache', () => {
  it('expires entries after the TTL and forgets deleted ones', () => {
    let now = 1_000;
    const cache = ttlCache<string>(30_000, () => now);
    cache.set('a', 'A');
    cache.set('b', 'B');
    now += 29_999;
    expect(cache.get('a')).toBe('A');
    cache.delete('b');
    expect(cache.get('b')).toBeUndefined();
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
