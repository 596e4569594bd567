import { expect } from 'vitest';
import { adminWithTenant, ok, type Story } from '../story.ts';

/** A tenant's knowledge base: a text file uploaded, indexed by the worker, retrieved, deleted. */
export const story: Story = async (ctx) => {
  const { tag } = ctx;
  const { admin, tenant, query } = await adminWithTenant(ctx, 'kb');
  const kb = ok(
    'base',
    await admin.POST('/api/knowledge/bases', { body: { name: 'Handbook', tenantId: tenant.id } }),
  ).result;
  expect(kb.chunkSize).toBe(512);
  const path = { kbId: kb.id };

  const sentence = `The ${tag} lighthouse keeper logs the fog horn hours in a brass ledger.`;
  const uploaded = ok(
    'upload',
    await admin.POST('/api/knowledge/bases/{kbId}/documents', {
      params: { path, query },
      body: { file: 'notes.txt' } as never,
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', new Blob([`Intro.\n\n${sentence}\n`], { type: 'text/plain' }), 'notes.txt');
        return form;
      },
    }),
  ).result;
  expect(uploaded.status).toBe('Queued');

  let status = uploaded.status;
  for (let i = 0; i < 100 && (status === 'Queued' || status === 'Processing'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    const page = ok('documents', await admin.GET('/api/knowledge/bases/{kbId}/documents', { params: { path, query } }));
    status = page.result.items.find((d) => d.id === uploaded.id)!.status;
  }
  expect(status).toBe('Indexed');

  const hits = ok(
    'retrieve',
    await admin.POST('/api/knowledge/bases/{kbId}/retrieve', {
      params: { path, query },
      body: { query: 'fog horn brass ledger', mode: 'hybrid', topK: 3 },
    }),
  ).result;
  expect(hits[0]!.text).toContain(sentence);
  const chunks = ok(
    'chunks',
    await admin.GET('/api/knowledge/bases/{kbId}/documents/{documentId}/chunks', {
      params: { path: { ...path, documentId: uploaded.id }, query },
    }),
  ).result;
  expect(chunks.totalCount).toBeGreaterThan(0);
  const renamed = ok(
    'rename',
    await admin.PUT('/api/knowledge/bases/{kbId}', { params: { path, query }, body: { name: 'Handbook 2' } }),
  ).result;
  expect(renamed.documentCount).toBe(1);
  const full = await admin.POST('/api/knowledge/bases', { body: { name: 'Second', tenantId: tenant.id } });
  expect(full.response.status).toBe(409);

  await admin.DELETE('/api/knowledge/bases/{kbId}/documents/{documentId}', {
    params: { path: { ...path, documentId: uploaded.id }, query },
  });
  await admin.DELETE('/api/knowledge/bases/{kbId}', { params: { path, query } });
  const gone = await admin.GET('/api/knowledge/bases/{kbId}', { params: { path, query } });
  expect(gone.response.status).toBe(404);
};
