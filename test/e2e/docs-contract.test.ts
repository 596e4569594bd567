import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';
import { contract } from '#test/support/contract.ts';
import { api, mintToken, send } from '#test/support/e2e.ts';

// `api` checks every response against the document before the test sees it.

describe('responses of the local server match the OpenAPI document', () => {
  it('GET /api/health', async () => {
    const res = await api('GET', '/api/health');
    expect(res).toAnswer(200);
  });

  it('GET /api/openapi.json serves the document this route table generates', async () => {
    const res = await api('GET', '/api/openapi.json');
    expect(res).toAnswer(200);
    expect(res.json).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('GET /api/docs and its files', async () => {
    for (const path of [
      '/api/docs',
      '/api/docs/docs.js',
      '/api/docs/swagger-ui.css',
      '/api/docs/swagger-ui-bundle.js',
    ]) {
      expect(await api('GET', path), path).toAnswer(200);
    }
  });

  it('suppliers: create, list, get', async () => {
    // Prepare
    const tenantId = crypto.randomUUID();
    const token = await mintToken({ role: 'TenantOwner', tenantId });
    // Act
    const created = await api('POST', '/api/suppliers', {
      token,
      body: { tenantId, name: 'Contract Parts', email: 'parts@example.com' },
    });
    const list = await api('GET', `/api/suppliers?tenantId=${tenantId}&page=1&pageSize=5`, { token });
    const one = await api('GET', `/api/suppliers/${created.json.result.id}`, { token });
    // Assess
    expect(created).toAnswer(201);
    expect(list).toAnswer(200);
    expect(list.json.result.items).toHaveLength(1);
    expect(one).toAnswer(200);
  });

  it('errors: 404, 400 (validation and bad JSON), 401', async () => {
    const tenantId = crypto.randomUUID();
    const token = await mintToken({ role: 'TenantOwner', tenantId });

    const missing = await api('GET', `/api/suppliers/${crypto.randomUUID()}`, { token });
    const invalid = await api('POST', '/api/suppliers', { token, body: { tenantId, name: '' } });
    const badJson = await api('POST', '/api/suppliers', { token, rawBody: '{"name":' });
    const badPage = await api('GET', `/api/suppliers?tenantId=${tenantId}&pageSize=500`, { token });
    const anonymous = await api('GET', '/api/suppliers');

    expect([missing.status, missing.json.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([invalid.status, invalid.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect([badJson.status, badJson.json.error.code]).toEqual([400, 'INVALID_JSON']);
    expect([badPage.status, badPage.json.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect([anonymous.status, anonymous.json.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('catches a response the document does not allow', async () => {
    const res = await send('GET', '/api/health');
    const tampered = { ...res, text: JSON.stringify({ success: true, result: { status: 'ok', extra: 1 } }) };
    expect(contract().violations('GET', '/api/health', tampered)).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(contract().violations('GET', '/api/health', { ...res, status: 418 })).toEqual([
      expect.stringContaining('status not listed'),
    ]);
  });
});
