import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentKey } from '#areas/knowledge/records.ts';
import { listNewestFirst } from '#shared/data/collection.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { queueSender } from '#shared/platform/ports.ts';
import { newTenant } from '#test/support/fixtures.ts';
import { invoke } from '#test/support/invoke.ts';
import {
  addText,
  documentOf,
  KB,
  newBase,
  retrieveAs,
  settled,
  useKnowledgeStandIns,
} from '#test/support/knowledge.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * A Failed document retried without a new upload, the base's documents counted per status through
 * every move, and the chunk ceiling that refuses uploads with a 409.
 */
useKnowledgeStandIns();

let tenantId: string;
let owner: string;
let member: string;
let otherOwner: string;
beforeAll(async () => {
  tenantId = await newTenant({ maxKnowledgeBases: 10 });
  owner = await tokenFor({ tenantId });
  member = await tokenFor({ tenantId, role: 'TenantMember' });
  otherOwner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 10 }) });
});

const byStatus = async (kbId: string) => {
  const res = await invoke('GET', `${KB}/${kbId}`, { token: owner });
  expect(res).toAnswer(200);
  return res.json.result.documentsByStatus;
};
const counts = (q: number, p: number, i: number, f: number) => ({ Queued: q, Processing: p, Indexed: i, Failed: f });

/** An upload whose indexing message is held back, then left past its Queued deadline: the list ends it Failed. */
async function failedDocument(kbId: string, text: string) {
  const deliver = await queueSender();
  queueSender.install({ send: async () => undefined });
  let id: string;
  try {
    const res = await addText(owner, kbId, 'Held back', text);
    expect(res).toAnswer(202);
    id = res.json.result.id;
  } finally {
    queueSender.install(deliver);
  }
  expect(await byStatus(kbId)).toEqual(counts(1, 0, 0, 0));
  const past = new Date(Date.now() - 60_000).toISOString();
  await ddb().send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: documentKey(tenantId, kbId, id),
      UpdateExpression: 'SET stageDeadline = :d',
      ExpressionAttributeValues: { ':d': past },
    }),
  );
  expect(await documentOf(owner, kbId, id)).toMatchObject({ status: 'Failed' });
  return id;
}

const retry = (token: string, kbId: string, id: string) =>
  invoke('POST', `${KB}/${kbId}/documents/${id}/retry`, { token });

describe('retrying a Failed document', () => {
  it('queues it again from its kept original (202), indexes it, and moves the counts with it', async () => {
    const kbId = (await newBase(owner)).id;
    const id = await failedDocument(kbId, 'The zqretry word is found once the retry indexed it.');
    expect(await byStatus(kbId)).toEqual(counts(0, 0, 0, 1));

    const res = await retry(owner, kbId, id);
    expect(res).toAnswer(202);
    expect(res.json.result).toMatchObject({ id, status: 'Queued', error: null, progressPercent: 0 });
    expect((await settled(owner, kbId, id)).status).toBe('Indexed');
    expect(await byStatus(kbId)).toEqual(counts(0, 0, 1, 0));
    expect((await retrieveAs(owner, kbId, { query: 'zqretry', mode: 'keyword' }))[0]?.documentId).toBe(id);

    const audit = await listNewestFirst<{ action: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId: id },
    });
    expect(audit.items.map((a) => a.action)).toContain('retry');

    // Indexed: nothing to retry.
    const again = await retry(owner, kbId, id);
    expect(again).toAnswer(409);
    expect(again.json).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
    expect(again.json.error.message).toEqual(expect.stringMatching(/Only a Failed document can be retried/));

    expect(await invoke('DELETE', `${KB}/${kbId}/documents/${id}`, { token: owner })).toAnswer(204);
    expect(await byStatus(kbId)).toEqual(counts(0, 0, 0, 0));
  });

  it('is refused to a member (403), hidden from another tenant (404), and 404 for an unknown document', async () => {
    const kbId = (await newBase(owner)).id;
    const id = await failedDocument(kbId, 'Anything.');
    expect(await retry(member, kbId, id)).toAnswer(403);
    expect(await retry(otherOwner, kbId, id)).toAnswer(404);
    const unknown = await retry(owner, kbId, crypto.randomUUID());
    expect(unknown).toAnswer(404);
    expect(unknown.json).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect(await byStatus(kbId)).toEqual(counts(0, 0, 0, 1));
  });

  it('counts a document that ends Failed in the worker, and a Queued one deleted before it ran', async () => {
    const kbId = (await newBase(owner)).id;
    // An empty file is accepted and ends Failed with its reason.
    const empty = await invoke('POST', `${KB}/${kbId}/documents`, {
      token: owner,
      rawBody: Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="file"; filename="empty.txt"\r\nContent-Type: text/plain\r\n\r\n\r\n--b--\r\n',
      ),
      contentType: 'multipart/form-data; boundary=b',
    });
    expect(empty).toAnswer(202);
    expect((await settled(owner, kbId, empty.json.result.id)).status).toBe('Failed');
    const deliver = await queueSender();
    queueSender.install({ send: async () => undefined });
    let held: string;
    try {
      held = (await addText(owner, kbId, 'Held', 'Never indexed.')).json.result.id;
    } finally {
      queueSender.install(deliver);
    }
    expect(await byStatus(kbId)).toEqual(counts(1, 0, 0, 1));
    expect(await invoke('DELETE', `${KB}/${kbId}/documents/${held}`, { token: owner })).toAnswer(204);
    expect(await byStatus(kbId)).toEqual(counts(0, 0, 0, 1));
  });
});

describe('the chunk ceiling of a base', () => {
  afterEach(() => {
    delete process.env.KNOWLEDGE_MAX_CHUNKS;
  });

  it('refuses uploads once the base holds it, with 409 KNOWLEDGE_BASE_FULL, and takes them again after a delete', async () => {
    const kbId = (await newBase(owner)).id;
    const first = await addText(owner, kbId, 'One', 'A single short chunk.');
    expect((await settled(owner, kbId, first.json.result.id)).status).toBe('Indexed');
    process.env.KNOWLEDGE_MAX_CHUNKS = '1';

    const refused = await addText(owner, kbId, 'Two', 'Another chunk.');
    expect(refused).toAnswer(409);
    expect(refused.json).toMatchObject({ success: false, error: { code: 'KNOWLEDGE_BASE_FULL' } });
    expect(refused.json.error.message).toEqual(expect.stringMatching(/holds 1 chunks; a base may hold at most 1\b/));
    const presign = await invoke('POST', `${KB}/${kbId}/documents/presigned-upload`, {
      token: owner,
      body: { fileName: 'a.txt', contentType: 'text/plain', size: 10 },
    });
    expect(presign).toAnswer(409, 'KNOWLEDGE_BASE_FULL');
    expect((await byStatus(kbId)).Queued).toBe(0);

    expect(await invoke('DELETE', `${KB}/${kbId}/documents/${first.json.result.id}`, { token: owner })).toAnswer(204);
    expect(await addText(owner, kbId, 'Two', 'Another chunk.')).toAnswer(202);
  });
});
