import { expect } from 'vitest';
import { makeClient, ok, type Story } from '../story.ts';

/** A service writes a secret with the internal key, reads it back and finds it in the list. */
export const story: Story = async ({ baseUrl, internalApiKey, tag }) => {
  const service = makeClient(baseUrl, { 'x-internal-api-key': internalApiKey });
  const path = { environment: 'staging', key: `TYPED_${tag.toUpperCase()}` };
  const written = ok(
    'secret put',
    await service.PUT('/api/secrets/{environment}/{key}', { params: { path }, body: { value: 's3cret' } }),
  );
  expect(written.result.version).toBeGreaterThanOrEqual(1);
  const read = ok('secret get', await service.GET('/api/secrets/{environment}/{key}', { params: { path } }));
  expect(read.result.value).toBe('s3cret');
  const list = ok(
    'secret list',
    await service.GET('/api/secrets/{environment}', { params: { path: { environment: 'staging' } } }),
  );
  expect(JSON.stringify(list.result)).toContain(path.key);
};
