import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect } from 'vitest';
import { startS3 } from '#local/s3.ts';
import { queueSender, type QueueMessage } from '#shared/platform/ports.ts';
import { s3 } from '#shared/platform/s3.ts';
import { invoke, type InvokeResult } from './invoke.ts';
import { tempDir } from './temp-dir.ts';
import { testQueue } from './test-ports.ts';

/** The knowledge area in the integration tier: a local S3 for originals and keyword indexes (vectors: test-ports). */
let running: ReturnType<typeof startS3> | undefined;
export async function startKnowledgeStandIns() {
  running ??= startS3(tempDir('knowledge-s3-'));
  await running;
  s3.install(undefined);
}
export function useKnowledgeStandIns() {
  beforeAll(startKnowledgeStandIns);
  afterAll(async () => {
    await (await running)?.stop();
    running = undefined;
  });
}

export const KB = '/api/knowledge/bases';

export function multipart(fileName: string, type: string, data: Buffer, fields: Record<string, string> = {}) {
  const boundary = `----kb${crypto.randomUUID().slice(0, 8)}`;
  const extra = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const head = Buffer.from(
    `${extra.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  return {
    rawBody: Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export async function newBase(token: string, body: Record<string, unknown> = {}) {
  const res = await invoke('POST', KB, { token, body: { name: `KB ${crypto.randomUUID().slice(0, 6)}`, ...body } });
  expect(res).toAnswer(201);
  return res.json.result as { id: string; chunkSize: number; chunkOverlap: number };
}

export async function addText(token: string, kbId: string, title: string, text: string): Promise<InvokeResult> {
  return invoke('POST', `${KB}/${kbId}/documents`, { token, body: { title, text } });
}

export async function addFile(token: string, kbId: string, fileName: string, type: string, data: Buffer) {
  return invoke('POST', `${KB}/${kbId}/documents`, { token, ...multipart(fileName, type, data) });
}

/** The document as the list shows it. */
export async function documentOf(token: string, kbId: string, documentId: string) {
  const res = await invoke('GET', `${KB}/${kbId}/documents`, { token, query: { pageSize: 100 } });
  expect(res).toAnswer(200);
  return (
    res.json.result.items as {
      id: string;
      status: string;
      error: string | null;
      chunkCount: number;
      tokenCount: number;
      progressPercent: number;
    }[]
  ).find((d) => d.id === documentId);
}

/** Polls the document list until the document leaves Queued/Processing (the test queue runs at once; the local one later). */
export async function settled(token: string, kbId: string, documentId: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = await documentOf(token, kbId, documentId);
    if (d && d.status !== 'Queued' && d.status !== 'Processing') return d;
    if (Date.now() > until) throw new Error(`Document ${documentId} still ${d?.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function retrieveAs(token: string, kbId: string, body: Record<string, unknown>) {
  const res = await invoke('POST', `${KB}/${kbId}/retrieve`, { token, body });
  expect(res).toAnswer(200);
  return res.json.result as {
    chunkId: string;
    documentId: string;
    documentTitle: string;
    sourceUrl?: string | null;
    position: number;
    text: string;
    score: number;
    keywordScore: number | null;
    vectorScore: number | null;
    rerankScore: number | null;
  }[];
}

/**
 * Uploads (as `token`, or an upload's own) with the indexing messages held back; `deliver` then
 * hands them to the worker in one SQS event, as a batching event source mapping does.
 */
export async function uploadTogether(
  token: string,
  uploads: { kbId: string; title: string; text: string; token?: string }[],
) {
  const held: QueueMessage[] = [];
  queueSender.install({
    send: async (queue, message) => {
      if (queue === 'indexing') held.push(message);
      else await testQueue.send(queue, message);
    },
  });
  const ids: string[] = [];
  try {
    for (const u of uploads) {
      const res = await addText(u.token ?? token, u.kbId, u.title, u.text);
      expect(res).toAnswer(202);
      ids.push(res.json.result.id);
    }
  } finally {
    queueSender.install(testQueue);
  }
  return { ids, deliver: () => deliverTogether(held) };
}

async function deliverTogether(messages: QueueMessage[]) {
  const { handler } = await import('#functions/knowledge-worker/index.ts');
  const Records = messages.map(
    (m) => ({ messageId: crypto.randomUUID(), body: JSON.stringify(m) }) as SQSEvent['Records'][number],
  );
  const out = await handler({ Records });
  expect(out.batchItemFailures).toEqual([]);
}
