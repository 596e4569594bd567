import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';
import { expectContract } from '#test/support/contract.ts';
import { invoke } from '#test/support/invoke.ts';

const require = createRequire(import.meta.url);
const distFile = (name: string) => readFileSync(require.resolve(`swagger-ui-dist/${name}`), 'utf8');

describe('system function: API reference routes', () => {
  it('serves the generated document as plain JSON', async () => {
    // Act
    const res = await invoke('GET', '/api/openapi.json');
    // Assess
    expect(res).toAnswer(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toEqual(JSON.parse(JSON.stringify(apiDocument())));
    expect(res.json.success).toBeUndefined();
    expectContract('GET', '/api/openapi.json', res);
  });

  it('serves the docs page with relative asset paths and a script policy of self only', async () => {
    const res = await invoke('GET', '/api/docs');
    expect(res).toAnswer(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(res.text).toContain('<link rel="stylesheet" href="docs/swagger-ui.css">');
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expectContract('GET', '/api/docs', res);
  });

  it('starts Swagger UI on the relative document URL with the outside validator off', async () => {
    const res = await invoke('GET', '/api/docs/docs.js');
    expect(res).toAnswer(200);
    expect(res.text).toContain("url: 'openapi.json'");
    expect(res.text).toContain('validatorUrl: null');
    expectContract('GET', '/api/docs/docs.js', res);
  });

  it('answers 404 in the error envelope for a file the reference page does not have', async () => {
    const res = await invoke('GET', '/api/docs/openapi.yaml');
    expect(res).toAnswer(404, 'NOT_FOUND');
    expectContract('GET', '/api/docs/openapi.yaml', res);
  });

  it.each([
    ['/api/docs/swagger-ui-bundle.js', 'swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['/api/docs/swagger-ui.css', 'swagger-ui.css', 'text/css; charset=utf-8'],
  ])('serves %s from swagger-ui-dist, gzipped when the client accepts it', async (path, file, type) => {
    // Act
    const plain = await invoke('GET', path);
    const gzipped = await invoke('GET', path, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    // Assess
    expect(plain).toAnswer(200);
    expect(plain.headers['content-type']).toBe(type);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(distFile(file));
    expectContract('GET', path, plain);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('accept-encoding');
    expect(gunzipSync(Buffer.from(gzipped.text, 'base64')).toString('utf8')).toBe(distFile(file));
  });
});
