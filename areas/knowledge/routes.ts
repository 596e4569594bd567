import * as z from 'zod/mini';
import {
  CHUNK_SIZE,
  DIRECT_MAX_BYTES,
  DIRECT_TOO_LARGE,
  DOCUMENT_STATUSES,
  FILE_TYPES,
  KNOWLEDGE_MAX_BYTES,
  MAX_TEXT_CHARS,
  RERANK_TOP_N,
  RETRIEVE_MODES,
  TOP_K,
} from '#areas/knowledge/vocabulary.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalText, pageOf, paging, searchTerm, text, uuid } from '#shared/routes/schemas.ts';
import { knowledgeBaseFull, planLimitReached } from '#areas/knowledge/errors.ts';
import { MODEL_CALL_REFUSALS } from '#areas/llm-gateway/for-knowledge.ts';
import { payloadTooLarge, unsupportedMediaType } from '#shared/http/errors.ts';
import { sourceRoutes } from './sources/source-routes.ts';

/** AI knowledge (spec 03-ai-runtime.md): bases, documents indexed by a worker, chunks, retrieval. */
const read = { kind: 'bearer', permission: 'knowledge:read' } as const;
const write = { kind: 'bearer', permission: 'knowledge:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
/** A SystemAdmin may name a base by its id alone. */
const ofBase = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'kbId', collection: 'KB', label: 'Knowledge base' },
});

const knowledgeBase = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.nullable(z.string()),
    chunkSize: z.number(),
    chunkOverlap: z.number(),
    embeddingModelId: z.nullable(z.string()),
    documentCount: z.number(),
    chunkCount: z.number(),
    excludeFlagged: z.boolean(),
    /** Its retrievals' best topN fused candidates reordered by a rerank model; null: the fused order. */
    rerank: z.nullable(z.object({ modelId: z.string(), topN: z.number() })),
    documentsByStatus: z.object({
      Queued: z.number(),
      Processing: z.number(),
      Indexed: z.number(),
      Failed: z.number(),
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const knowledgeDocument = once(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    fileName: z.nullable(z.string()),
    contentType: z.string(),
    sizeBytes: z.number(),
    status: z.enum(DOCUMENT_STATUSES),
    progressPercent: z.number(),
    chunkCount: z.number(),
    tokenCount: z.number(),
    flaggedChunks: z.number(),
    error: z.nullable(z.string()),
    createdAt: z.string(),
    indexedAt: z.nullable(z.string()),
    /** A page a source brought in: its source and URL (null for an upload). */
    sourceId: z.nullable(z.string()),
    sourceUrl: z.nullable(z.string()),
  }),
);
const knowledgeChunk = once(() =>
  z.object({
    id: z.string(),
    documentId: z.string(),
    position: z.number(),
    text: z.string(),
    tokenCount: z.number(),
    flagged: z.boolean(),
    flagReason: z.nullable(z.string()),
  }),
);
const knowledgeMatch = once(() =>
  z.object({
    chunkId: z.string(),
    documentId: z.string(),
    documentTitle: z.string(),
    /** The page a source brought it from (null for an upload). */
    sourceUrl: z.optional(z.nullable(z.string())),
    position: z.number(),
    text: z.string(),
    score: z.number(),
    keywordScore: z.nullable(z.number()),
    vectorScore: z.nullable(z.number()),
    /** The base's reranker's score; null when no base asked for one, or below its topN, or it did not answer. */
    rerankScore: z.nullable(z.number()),
  }),
);

/** The JSON form of a document upload (the route also takes multipart `file`; the handler picks by content type). */
export const textDocumentBody = once(() =>
  z.object({ title: text(300), text: z.string().check(z.minLength(1), z.maxLength(MAX_TEXT_CHARS)) }).check(
    z.meta({
      examples: [
        {
          title: 'Returns policy',
          text: 'Orders can be returned within 30 days.\n\nRefunds reach the original card within 5 working days.',
        },
      ],
    }),
  ),
);

const chunkSize = () => z.number().check(z.int(), z.minimum(CHUNK_SIZE.min), z.maximum(CHUNK_SIZE.max));
const chunkOverlap = () => z.number().check(z.int(), z.minimum(0), z.maximum(CHUNK_SIZE.max / 2));
/** Opt-in reranking: a catalog model of kind rerank reads the best topN fused candidates. */
const rerankSetting = () =>
  z.optional(
    z.nullable(
      z.object({
        modelId: uuid(),
        topN: z.number().check(z.int(), z.minimum(RERANK_TOP_N.min), z.maximum(RERANK_TOP_N.max)),
      }),
    ),
  );
const baseParams = once(() => z.object({ kbId: uuid() }));
const documentParams = once(() => z.object({ kbId: uuid(), documentId: uuid() }));
const uploadParams = once(() => z.object({ kbId: uuid(), uploadId: uuid() }));
const fileTypes = Object.keys(FILE_TYPES) as [keyof typeof FILE_TYPES, ...(keyof typeof FILE_TYPES)[]];
const P = '/api/knowledge/bases';
const common = { group: 'knowledge' } as const;

const baseRoutes = defineRoutes([
  {
    ...common,
    id: 'knowledge.bases.list',
    method: 'GET',
    path: P,
    auth: read,
    scope: ofTenant,
    summary: 'List knowledge bases, newest first; search matches the name',
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), ...paging(), search: searchTerm() }),
      response: pageOf(knowledgeBase()),
    }),
  },
  {
    ...common,
    id: 'knowledge.bases.create',
    method: 'POST',
    path: P,
    auth: write,
    scope: ofBody,
    summary:
      "Create a knowledge base within the plan's maxKnowledgeBases (409 PLAN_LIMIT_REACHED); chunkSize " +
      `${CHUNK_SIZE.min}-${CHUNK_SIZE.max} tokens (default ${CHUNK_SIZE.default}), chunkOverlap at most half of it (default 64)`,
    status: 201,
    errors: [planLimitReached],
    schemas: () => ({
      body: z.object({
        name: text(200),
        description: optionalText(2000),
        chunkSize: z.optional(z.nullable(chunkSize())),
        chunkOverlap: z.optional(z.nullable(chunkOverlap())),
        embeddingModelId: z.optional(z.nullable(uuid())),
        excludeFlagged: z.optional(z.boolean()),
        rerank: rerankSetting(),
        tenantId: z.optional(uuid()),
      }),
      response: knowledgeBase(),
    }),
  },
  {
    ...common,
    id: 'knowledge.bases.get',
    method: 'GET',
    path: `${P}/{kbId}`,
    auth: read,
    scope: ofBase,
    summary: 'A knowledge base with its document and chunk counts',
    status: 200,
    schemas: () => ({ params: baseParams(), query: z.object(tenantQuery()), response: knowledgeBase() }),
  },
  {
    ...common,
    id: 'knowledge.bases.update',
    method: 'PUT',
    path: `${P}/{kbId}`,
    auth: write,
    scope: ofBase,
    summary:
      'Rename or describe a knowledge base, keep its flagged chunks out of retrieval, or set its reranker (null: none; absent fields stay; chunking settings are fixed at creation)',
    status: 200,
    schemas: () => ({
      params: baseParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(text(200)),
        description: optionalText(2000),
        excludeFlagged: z.optional(z.boolean()),
        rerank: rerankSetting(),
      }),
      response: knowledgeBase(),
    }),
  },
  {
    ...common,
    id: 'knowledge.bases.delete',
    method: 'DELETE',
    path: `${P}/{kbId}`,
    auth: write,
    scope: ofBase,
    summary:
      'Delete a knowledge base: it leaves retrieval at once; its documents, chunks and vectors are removed by the worker',
    status: 204,
    schemas: () => ({ params: baseParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'knowledge.documents.upload',
    method: 'POST',
    path: `${P}/{kbId}/documents`,
    auth: write,
    scope: ofBase,
    summary:
      'Add a document: multipart part "file" (txt, md, html, pdf, docx, checked by content; others 415; ' +
      `at most ${DIRECT_MAX_BYTES} bytes in the request, larger files up to 10 MB through documents/presigned-upload) ` +
      'or JSON {title, text}. Answers 202 with status Queued; ' +
      'a worker parses, chunks, embeds and indexes it. 409 KNOWLEDGE_BASE_FULL once the base holds its ceiling of chunks',
    status: 202,
    errors: [knowledgeBaseFull],
    bodyType: 'multipart',
    maxBodyBytes: DIRECT_MAX_BYTES + 64 * 1024,
    tooLargeMessage: DIRECT_TOO_LARGE,
    schemas: () => ({
      params: baseParams(),
      query: z.object({ ...tenantQuery(), title: z.optional(text(300)) }),
      jsonBody: textDocumentBody(),
      response: knowledgeDocument(),
    }),
  },
  {
    ...common,
    id: 'knowledge.documents.list',
    method: 'GET',
    path: `${P}/{kbId}/documents`,
    auth: read,
    scope: ofBase,
    summary: 'Documents of a base, newest first, with status, progress, counts and the reason of a failure',
    status: 200,
    schemas: () => ({
      params: baseParams(),
      query: z.object({ ...tenantQuery(), ...paging(), status: z.optional(z.enum(DOCUMENT_STATUSES)) }),
      response: pageOf(knowledgeDocument()),
    }),
  },
  {
    ...common,
    id: 'knowledge.documents.delete',
    method: 'DELETE',
    path: `${P}/{kbId}/documents/{documentId}`,
    auth: write,
    scope: ofBase,
    summary: 'Delete a document: its chunks leave retrieval at once; the worker removes them and its vectors',
    status: 204,
    schemas: () => ({ params: documentParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'knowledge.documents.retry',
    method: 'POST',
    path: `${P}/{kbId}/documents/{documentId}/retry`,
    auth: write,
    scope: ofBase,
    summary:
      'Queue a Failed document for indexing again from its kept original (no new upload): 202 with status ' +
      'Queued; 409 for a document in any other status',
    status: 202,
    schemas: () => ({ params: documentParams(), query: z.object(tenantQuery()), response: knowledgeDocument() }),
  },
  {
    ...common,
    id: 'knowledge.documents.chunks',
    method: 'GET',
    path: `${P}/{kbId}/documents/{documentId}/chunks`,
    auth: read,
    scope: ofBase,
    summary: 'Chunks of a document in position order',
    status: 200,
    schemas: () => ({
      params: documentParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(knowledgeChunk()),
    }),
  },
  {
    ...common,
    id: 'knowledge.retrieve',
    method: 'POST',
    path: `${P}/{kbId}/retrieve`,
    auth: read,
    scope: ofBase,
    summary:
      'The chunks that best answer a query: keyword (BM25), semantic (cosine) or hybrid (default: ' +
      '0.8 x keywordScore + 0.2 x vectorScore), best first, with both component scores',
    status: 200,
    errors: [...MODEL_CALL_REFUSALS],
    schemas: () => ({
      params: baseParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        query: text(4000),
        topK: z.optional(z.nullable(z.number().check(z.int(), z.minimum(TOP_K.min), z.maximum(TOP_K.max)))),
        mode: z.optional(z.nullable(z.enum(RETRIEVE_MODES))),
        scoreThreshold: z.optional(z.nullable(z.number().check(z.minimum(-1), z.maximum(1)))),
      }),
      response: z.array(knowledgeMatch()),
    }),
  },
  {
    ...common,
    id: 'knowledge.documents.presignUpload',
    method: 'POST',
    path: `${P}/{kbId}/documents/presigned-upload`,
    auth: write,
    scope: ofBase,
    summary:
      `A presigned PUT for a file up to ${KNOWLEDGE_MAX_BYTES} bytes (10 MB), valid 15 minutes; then POST ` +
      '.../presigned-upload/{uploadId}/complete. A size over 10 MB is 400; a file over it at complete 413',
    status: 201,
    errors: [knowledgeBaseFull],
    schemas: () => ({
      params: baseParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        fileName: text(255),
        contentType: z.enum(fileTypes),
        size: z.number().check(z.int(), z.minimum(1), z.maximum(KNOWLEDGE_MAX_BYTES)),
        title: z.optional(z.nullable(text(300))),
      }),
      response: z.object({
        uploadId: z.string(),
        uploadUrl: z.string(),
        method: z.literal('PUT'),
        headers: z.record(z.string(), z.string()),
        expiresAt: z.string(),
      }),
    }),
  },
  {
    ...common,
    id: 'knowledge.documents.completeUpload',
    method: 'POST',
    path: `${P}/{kbId}/documents/presigned-upload/{uploadId}/complete`,
    auth: write,
    scope: ofBase,
    summary:
      'Check a presigned upload by its size and bytes (413, 415 as a direct upload; the upload is then ' +
      'forgotten), and queue it as a document: 202 with status Queued',
    status: 202,
    errors: [payloadTooLarge, unsupportedMediaType, knowledgeBaseFull],
    schemas: () => ({ params: uploadParams(), query: z.object(tenantQuery()), response: knowledgeDocument() }),
  },
  {
    ...common,
    id: 'knowledge.mcp.mint',
    method: 'POST',
    path: `${P}/{kbId}/mcp`,
    auth: write,
    scope: ofBase,
    summary:
      'Mint an MCP endpoint for this base: a stateless Streamable HTTP URL offering search and fetch, and the ' +
      'gateway key it takes (shown once; it allows no model and no budget, and revoking it on the gateway key ' +
      'routes closes the endpoint)',
    status: 201,
    schemas: () => ({
      params: baseParams(),
      query: z.object(tenantQuery()),
      response: z.object({
        endpointId: z.string(),
        kbId: z.string(),
        url: z.string(),
        keyId: z.string(),
        /** The gateway key's secret, shown only here. */
        key: z.string(),
        createdAt: z.string(),
      }),
    }),
  },
  {
    ...common,
    id: 'knowledge.mcp.serve',
    method: 'POST',
    path: '/mcp/knowledge/{endpointId}',
    auth: { kind: 'gatewayKey' },
    scope: ofTenant,
    summary:
      'An MCP endpoint of one knowledge base (Streamable HTTP, stateless: POST only, no session): JSON-RPC ' +
      'with the tools search (query, mode keyword|semantic|hybrid, topK) and fetch (documentId, page). ' +
      "Authorization: Bearer the endpoint's gateway key; 202 for a notification",
    status: 200,
    bodyType: 'raw',
    maxBodyBytes: 64 * 1024,
    rawResponse: { contentType: ['application/json', 'text/event-stream'] },
    rateLimit: { name: 'knowledge-mcp', limit: 120, windowSeconds: 60 },
    errors: [...MODEL_CALL_REFUSALS],
    schemas: () => ({
      params: z.object({ endpointId: uuid() }),
      query: z.object(tenantQuery()),
      // Streamed, the answer is one event: the JSON-RPC response a JSON answer would carry.
      events: z.object({
        jsonrpc: z.literal('2.0'),
        id: z.nullable(z.union([z.string(), z.number()])),
        result: z.optional(z.record(z.string(), z.unknown())),
        error: z.optional(z.object({ code: z.number(), message: z.string() })),
      }),
    }),
  },
]);

/** The base's routes, then its sources' (sources/source-routes.ts). */
export const knowledgeRoutes = [...baseRoutes, ...sourceRoutes] as const;
