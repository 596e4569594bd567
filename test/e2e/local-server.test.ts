import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { api, e2e, mintToken } from '#test/support/e2e.ts';

describe('local server over real HTTP', () => {
  it('GET /api/health answers exactly the health envelope', async () => {
    const res = await api('GET', '/api/health');

    expect(res).toAnswer(200);
    expect(res.text).toBe('{"success":true,"result":{"status":"ok"}}');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers an unknown path with 404 ROUTE_NOT_FOUND in the envelope', async () => {
    const res = await api('GET', '/api/does-not-exist');

    expect(res).toAnswer(404);
    expect(res.json).toEqual({ success: false, error: { code: 'ROUTE_NOT_FOUND', message: expect.any(String) } });
  });

  it('answers a wrong method with 405 METHOD_NOT_ALLOWED', async () => {
    const res = await api('DELETE', '/api/health');

    expect(res).toAnswer(405);
    expect(res.json).toMatchObject({ success: false, error: { code: 'METHOD_NOT_ALLOWED' } });
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('streams server-sent events one by one (as `curl -N` shows them), through the same route table', async () => {
    const res = await fetch(`${e2e().baseUrl}/api/health/stream?count=3`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const arrivals: { at: number; text: string }[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      arrivals.push({ at: performance.now(), text: decoder.decode(chunk) });
    }
    const events = arrivals
      .map((a) => a.text)
      .join('')
      .split('\n\n')
      .filter(Boolean);
    expect(events.map((e) => e.split('\n')[0])).toEqual(['event: tick', 'event: tick', 'event: tick', 'event: done']);
    // The server waits 250 ms between ticks: the first one was read before the last one existed.
    expect(arrivals.length).toBeGreaterThanOrEqual(3);
    expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(400);
    const bad = await api('GET', '/api/health/stream?count=11');
    expect(bad).toMatchObject({ status: 400, json: { error: { code: 'VALIDATION_ERROR' } } });
  });

  it('GET /_local/outbox returns the e-mails as a plain JSON array', async () => {
    const res = await api('GET', '/_local/outbox');

    expect(res).toAnswer(200);
    expect(Array.isArray(res.json)).toBe(true);
  });

  it('publishes the key that verifies the tokens signed with the server’s signing key', async () => {
    const token = await mintToken({ role: 'TenantOwner' });
    const res = await api('GET', '/.well-known/jwks.json');

    expect(res).toAnswer(200);
    expect(res.json.keys.length).toBeGreaterThan(0);
    expect(res.json.keys.map((k: { kid: string }) => k.kid)).toContain(decodeProtectedHeader(token).kid);
    expect(JSON.stringify(res.json)).not.toMatch(/"d"\s*:/);
  });

  it('a tenant owner creates a supplier, reads it by id and finds it in the list', async () => {
    const tenantId = crypto.randomUUID();
    const token = await mintToken({ role: 'TenantOwner', tenantId });

    const created = await api('POST', '/api/suppliers', {
      token,
      body: { tenantId, name: 'Acme Parts', contactPerson: 'Ada', email: 'ada@acme.example', isVendor: true },
    });
    expect(created).toAnswer(201);
    expect(created.json.result).toMatchObject({ tenantId, name: 'Acme Parts', isVendor: true, id: expect.any(String) });
    const { id } = created.json.result;

    const read = await api('GET', `/api/suppliers/${id}`, { token });
    expect(read).toAnswer(200);
    expect(read.json.result).toEqual(created.json.result);

    const list = await api('GET', '/api/suppliers?search=acme', { token });
    expect(list).toAnswer(200);
    expect(list.json.result).toMatchObject({ totalCount: 1, page: 1, items: [created.json.result] });
  });

  it('keeps tenants apart: another tenant gets 404 for the id and an empty list', async () => {
    const tenantId = crypto.randomUUID();
    const owner = await mintToken({ role: 'TenantOwner', tenantId });
    const created = await api('POST', '/api/suppliers', { token: owner, body: { tenantId, name: 'Private Supplier' } });
    const stranger = await mintToken({ role: 'TenantOwner' });

    const read = await api('GET', `/api/suppliers/${created.json.result.id}`, { token: stranger });
    const list = await api('GET', '/api/suppliers', { token: stranger });

    expect(read).toAnswer(404);
    expect(list.json.result.totalCount).toBe(0);
  });

  it('a SystemAdmin must name an existing tenant', async () => {
    const token = await mintToken({ role: 'SystemAdmin' });

    const unnamed = await api('GET', '/api/suppliers', { token });
    const unknown = await api('GET', `/api/suppliers?tenantId=${crypto.randomUUID()}`, { token });

    expect(unnamed).toAnswer(400, 'VALIDATION_ERROR');
    expect(unknown).toAnswer(404);
  });

  it('rejects malformed JSON with 400 INVALID_JSON and a missing token with 401', async () => {
    const token = await mintToken({ role: 'TenantOwner' });

    const malformed = await api('POST', '/api/suppliers', { token, rawBody: '{"name": "x",' });
    const anonymous = await api('GET', '/api/suppliers');

    expect(malformed).toAnswer(400);
    expect(malformed.json).toMatchObject({ success: false, error: { code: 'INVALID_JSON' } });
    expect(anonymous).toAnswer(401, 'UNAUTHORIZED');
  });

  it('answers a body over 11 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const token = await mintToken({ role: 'TenantOwner' });

    const res = await api('POST', '/api/suppliers', { token, rawBody: `"${'x'.repeat(12 * 1024 * 1024)}"` });

    expect(res).toAnswer(413, 'PAYLOAD_TOO_LARGE');
  });

  it('accepts a request from another loopback address (the TCP peer is the source IP)', async () => {
    const res = await api('GET', '/api/health', { localAddress: '127.0.0.2' });

    expect(res).toAnswer(200);
    expect(res.json).toEqual({ success: true, result: { status: 'ok' } });
  });
});
