import { Readable } from 'node:stream';
import {
  GetParameterCommand,
  GetParametersByPathCommand,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
  ThrottlingException,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSsmClient, createSsmParameterStore, SSM_RETRY } from '#shared/platform/aws-params.ts';
import { parameterStore, type ParameterStore } from '#shared/platform/ports.ts';
import { toApiError } from '#shared/runtime/middlewares/error-envelope.ts';
import { logger } from '#shared/runtime/logger.ts';
import { deleteSecret, listSecrets, readSecret, resetVaultCache, writeSecret } from '#areas/vault/store.ts';
import { invoke } from '#test/support/invoke.ts';

const KEY_HEADER = { 'x-internal-api-key': 'test-internal-key' };
const offline = { region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
const throttled = () => new ThrottlingException({ message: 'Rate exceeded', Message: 'Rate exceeded', $metadata: {} });

describe('SSM parameter store (aws-sdk-client-mock)', () => {
  const client = new SSMClient({ ...SSM_RETRY, ...offline });
  const ssm = mockClient(client);
  let store: ParameterStore;
  beforeAll(async () => {
    store = await createSsmParameterStore(client);
  });

  beforeEach(() => {
    ssm.reset();
    resetVaultCache();
    parameterStore.install(store);
    process.env.VAULT_KMS_KEY_ID = 'arn:aws:kms:us-east-1:111122223333:key/vault';
  });
  afterEach(() => {
    delete process.env.VAULT_KMS_KEY_ID;
  });

  it('writes a secret as a SecureString under the vault path with the stack KMS key', async () => {
    // Prepare
    ssm.on(PutParameterCommand).resolves({ Version: 3 });
    // Act
    const out = await writeSecret('prod', 'DB_URL', 'postgres://u:p@h/db');
    // Assess
    expect(out.version).toBe(3);
    const calls = ssm.commandCalls(PutParameterCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      Name: '/saas/local/vault/prod/DB_URL',
      Value: 'postgres://u:p@h/db',
      Type: 'SecureString',
      KeyId: 'arn:aws:kms:us-east-1:111122223333:key/vault',
      Overwrite: true,
      Tier: 'Standard',
    });
  });

  it('reads one secret with decryption and treats ParameterNotFound as absent', async () => {
    ssm
      .on(GetParameterCommand, { Name: '/saas/local/vault/prod/API_TOKEN' })
      .resolves({ Parameter: { Name: '/saas/local/vault/prod/API_TOKEN', Value: 's3cr3t', Version: 2 } })
      .on(GetParameterCommand, { Name: '/saas/local/vault/prod/MISSING' })
      .rejects(new ParameterNotFound({ message: 'not found', $metadata: {} }));

    expect(await readSecret('prod', 'API_TOKEN')).toEqual({ value: 's3cr3t', version: 2 });
    expect(await readSecret('prod', 'MISSING')).toBeNull();
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toEqual([
      { Name: '/saas/local/vault/prod/API_TOKEN', WithDecryption: true },
      { Name: '/saas/local/vault/prod/MISSING', WithDecryption: true },
    ]);
  });

  it('serves repeated reads from the function cache, and a write invalidates it', async () => {
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'one', Version: 1 } });
    ssm.on(PutParameterCommand).resolves({ Version: 2 });

    await readSecret('prod', 'K');
    await readSecret('prod', 'K');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);

    await writeSecret('prod', 'K', 'two');
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'two', Version: 2 } });
    expect(await readSecret('prod', 'K')).toEqual({ value: 'two', version: 2 });
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('lists an environment across every page of GetParametersByPath, masked and ordered by key', async () => {
    const path = '/saas/local/vault/prod';
    const when = new Date('2026-01-31T09:15:00.000Z');
    ssm
      .on(GetParametersByPathCommand, { Path: path, NextToken: undefined })
      .resolves({
        Parameters: [{ Name: `${path}/b`, Value: 'plain-b', Version: 1, LastModifiedDate: when }],
        NextToken: 'page2',
      })
      .on(GetParametersByPathCommand, { Path: path, NextToken: 'page2' })
      .resolves({
        Parameters: [{ Name: `${path}/c`, Value: '__deleted__', Version: 4, LastModifiedDate: when }],
        NextToken: 'page3',
      })
      .on(GetParametersByPathCommand, { Path: path, NextToken: 'page3' })
      .resolves({ Parameters: [{ Name: `${path}/a`, Value: 'plain-a', Version: 2, LastModifiedDate: when }] });

    const items = await listSecrets('prod');

    const calls = ssm.commandCalls(GetParametersByPathCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      { Path: path, Recursive: true, WithDecryption: true, NextToken: undefined },
      { Path: path, Recursive: true, WithDecryption: true, NextToken: 'page2' },
      { Path: path, Recursive: true, WithDecryption: true, NextToken: 'page3' },
    ]);
    expect(items).toEqual([
      { key: 'a', value: '***', version: 2, updatedAt: when.toISOString(), deleted: false },
      { key: 'b', value: '***', version: 1, updatedAt: when.toISOString(), deleted: false },
      { key: 'c', value: '***', version: 4, updatedAt: when.toISOString(), deleted: true },
    ]);
    expect(JSON.stringify(items)).not.toMatch(/plain-/);
  });

  it('deletes by writing the marker as a new SecureString version, and 404s what is not live', async () => {
    ssm
      .on(GetParameterCommand, { Name: '/saas/local/vault/prod/K' })
      .resolves({ Parameter: { Value: 'live', Version: 1 } });
    ssm
      .on(GetParameterCommand, { Name: '/saas/local/vault/prod/GONE' })
      .resolves({ Parameter: { Value: '__deleted__', Version: 2 } });
    ssm.on(PutParameterCommand).resolves({ Version: 2 });

    expect(await deleteSecret('prod', 'K')).toEqual({ version: 2 });
    expect(await deleteSecret('prod', 'GONE')).toBeNull();

    const puts = ssm.commandCalls(PutParameterCommand).map((c) => c.args[0].input);
    expect(puts).toEqual([
      expect.objectContaining({
        Name: '/saas/local/vault/prod/K',
        Value: '__deleted__',
        Type: 'SecureString',
        Overwrite: true,
      }),
    ]);
  });

  it('maps throttling that outlasted the retries to 503 SERVICE_UNAVAILABLE over HTTP, never 500', async () => {
    ssm.on(GetParameterCommand).rejects(throttled());

    const res = await invoke('GET', '/api/secrets/prod/DB_URL', { headers: KEY_HEADER });

    expect(res).toAnswer(503, 'SERVICE_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('also maps TooManyUpdates on a write to 503', async () => {
    ssm.on(PutParameterCommand).rejects(Object.assign(new Error('too many updates'), { name: 'TooManyUpdates' }));

    const res = await invoke('PUT', '/api/secrets/prod/DB_URL', { headers: KEY_HEADER, body: { value: 'x' } });

    expect(res).toAnswer(503);
  });

  it('never lets an SSM error text that quotes the value reach the client or the log', async () => {
    const secret = 'hunter2-very-secret';
    ssm.on(PutParameterCommand).rejects(
      Object.assign(new Error(`1 validation error detected: Value '${secret}' at 'value' failed`), {
        name: 'ValidationException',
      }),
    );
    const logged = vi.spyOn(logger, 'error');

    const res = await invoke('PUT', '/api/secrets/prod/DB_URL', { headers: KEY_HEADER, body: { value: secret } });

    expect(res).toAnswer(500);
    expect(res.json.error).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred' });
    expect(res.text).not.toContain(secret);
    const seen = logged.mock.calls.map((args) =>
      JSON.stringify(args, (_k, v) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v)),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('\n')).not.toContain(secret);
    logged.mockRestore();
  });
});

/**
 * aws-sdk-client-mock replaces `send`, which skips the SDK's middleware stack and so its retry
 * strategy. These tests keep the real client (the production config from createSsmClient) and
 * stub only the HTTP transport, so the retry middleware itself is what is exercised.
 */
describe('SSM throttling retries (real SDK retry middleware, stubbed transport)', () => {
  function transport(throttleFirst: number, body: unknown) {
    const handler = {
      calls: 0,
      async handle() {
        handler.calls++;
        const isThrottled = handler.calls <= throttleFirst;
        const payload = isThrottled ? { __type: 'ThrottlingException', message: 'Rate exceeded' } : body;
        return {
          response: {
            statusCode: isThrottled ? 400 : 200,
            headers: { 'content-type': 'application/x-amz-json-1.1' },
            body: Readable.from([Buffer.from(JSON.stringify(payload))]),
          },
        };
      },
    };
    return handler;
  }

  // Backoff sleeps are real timers: fake time lets eight attempts run in milliseconds.
  async function settle<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) await vi.advanceTimersByTimeAsync(1_000);
    return promise;
  }

  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is configured for 8 attempts in adaptive mode', async () => {
    const client = await createSsmClient(offline);
    expect(SSM_RETRY).toEqual({ maxAttempts: 8, retryMode: 'adaptive' });
    expect(await client.config.maxAttempts()).toBe(8);
    const strategy = (await client.config.retryStrategy()) as { mode?: string };
    expect(strategy.mode).toBe('adaptive');
  });

  it('retries a throttled GetParameter with backoff until it succeeds', async () => {
    const http = transport(3, { Parameter: { Name: '/saas/local/vault/prod/K', Value: 'v', Version: 5 } });
    const store = await createSsmParameterStore(await createSsmClient({ ...offline, requestHandler: http }));

    const found = await settle(store.get('/saas/local/vault/prod/K'));

    expect(found).toEqual({ value: 'v', version: 5 });
    expect(http.calls).toBe(4);
  });

  it('retries a throttled page of GetParametersByPath without losing the pages before it', async () => {
    let page = 0;
    const http = {
      calls: 0,
      async handle() {
        http.calls++;
        // First page fine, second page throttled twice, then fine.
        const isThrottled = page === 1 && http.calls <= 3;
        const payload = isThrottled
          ? { __type: 'ThrottlingException', message: 'Rate exceeded' }
          : page++ === 0
            ? { Parameters: [{ Name: '/p/a', Value: '1', Version: 1 }], NextToken: 't' }
            : { Parameters: [{ Name: '/p/b', Value: '2', Version: 1 }] };
        return {
          response: {
            statusCode: isThrottled ? 400 : 200,
            headers: { 'content-type': 'application/x-amz-json-1.1' },
            body: Readable.from([Buffer.from(JSON.stringify(payload))]),
          },
        };
      },
    };
    const store = await createSsmParameterStore(await createSsmClient({ ...offline, requestHandler: http }));

    const all = await settle(store.listByPath('/p'));

    expect(all.map((p) => p.name)).toEqual(['/p/a', '/p/b']);
    expect(http.calls).toBe(4);
  });

  it('gives up after 8 attempts with ThrottlingException, which the API maps to 503', async () => {
    const http = transport(Number.POSITIVE_INFINITY, {});
    const store = await createSsmParameterStore(await createSsmClient({ ...offline, requestHandler: http }));

    const error = await settle(store.put('/saas/local/vault/prod/K', 'v')).catch((e: unknown) => e);

    expect(http.calls).toBe(8);
    expect((error as Error).name).toBe('ThrottlingException');
    const apiError = toApiError(error);
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe('SERVICE_UNAVAILABLE');
  });
});
