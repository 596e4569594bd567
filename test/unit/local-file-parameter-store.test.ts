import { describe, expect, it } from 'vitest';
import { fileParameterStore } from '#local/file-parameter-store.ts';
import { tempDir } from '#test/support/temp-dir.ts';

const newDir = () => tempDir('local-params-');

describe('file parameter store (SSM stand-in)', () => {
  it('numbers versions like SSM and keeps every one of them', async () => {
    // Prepare
    const store = fileParameterStore(newDir());

    // Act
    const v1 = await store.put('/saas/local/a', 'one');
    const v2 = await store.put('/saas/local/a', 'two');

    // Assess
    expect([v1.version, v2.version]).toEqual([1, 2]);
    expect(await store.get('/saas/local/a')).toEqual({ value: 'two', version: 2 });
    expect(await store.get('/saas/local/a:1')).toEqual({ value: 'one', version: 1 });
    expect(store.versions('/saas/local/a')).toEqual([
      { version: 1, value: 'one' },
      { version: 2, value: 'two' },
    ]);
    expect(await store.get('/saas/local/missing')).toBeNull();
  });

  it('persists across instances on the same directory', async () => {
    // Prepare
    const dir = newDir();
    await fileParameterStore(dir).put('/saas/local/vault/db', 'secret', { secure: true });
    await fileParameterStore(dir).put('/saas/local/vault/api', 'plain', { secure: false });

    // Act
    const reopened = fileParameterStore(dir);

    // Assess
    expect(await reopened.get('/saas/local/vault/db')).toEqual({ value: 'secret', version: 1 });
    const listed = await reopened.listByPath('/saas/local/vault');
    expect(listed.map(({ name, value, version }) => ({ name, value, version }))).toEqual([
      { name: '/saas/local/vault/db', value: 'secret', version: 1 },
      { name: '/saas/local/vault/api', value: 'plain', version: 1 },
    ]);
  });

  it('refuses to overwrite when asked not to, and hides SecureString values read without decryption', async () => {
    // Prepare
    const store = fileParameterStore(newDir());
    await store.put('/p/secure', 's3cret');
    await store.put('/p/plain', 'visible', { secure: false });

    // Act
    const refused = store.put('/p/secure', 'again', { overwrite: false });

    // Assess
    await expect(refused).rejects.toMatchObject({ name: 'ParameterAlreadyExists' });
    expect((await store.get('/p/secure', { decrypt: false }))?.value).not.toBe('s3cret');
    expect((await store.get('/p/plain', { decrypt: false }))?.value).toBe('visible');
    expect(store.versions('/p/secure')).toHaveLength(1);
  });

  it('a read-only instance reads what another instance wrote but cannot write', async () => {
    // Prepare
    const dir = newDir();
    const reader = fileParameterStore(dir, { readOnly: true });
    await fileParameterStore(dir).put('/k', 'v');

    // Act / Assess
    expect(await reader.get('/k')).toEqual({ value: 'v', version: 1 });
    await expect(reader.put('/k', 'w')).rejects.toThrow(/read-only/);
  });
});
