import { tenantDirectory } from '#areas/identity/tenant-lookups.ts';
import { createBase, deleteBase, getBase, listBases, updateBase } from '#areas/knowledge/bases.ts';
import {
  deleteDocument,
  listChunks,
  listDocuments,
  retryDocument,
  uploadDocument,
} from '#areas/knowledge/documents.ts';
import { completeDocumentUpload, presignDocumentUpload } from '#areas/knowledge/presigned.ts';
import { retrieve } from '#areas/knowledge/retrieve.ts';
import { endpointFor, mintMcpEndpoint, serveMcp } from '#areas/knowledge/mcp-endpoint.ts';
import { gatewayKeyCredential } from '#areas/llm-gateway/key-auth.ts';
import { knowledgeRoutes } from '#areas/knowledge/routes.ts';
import {
  createSource,
  deleteSource,
  getSource,
  listSources,
  syncSource,
  updateSource,
} from '#areas/knowledge/sources/manage.ts';
import { tenantAgents } from '#areas/agents/directory.ts';
import { unbindDeletedBase } from '#areas/agents/unbind-base.ts';
import { BASE_DELETED, CHUNKS_CHANGED } from '#areas/knowledge/events.ts';
import { refreshAfterChunksChanged } from '#areas/tools/kb-status.ts';
import { TENANT_AGENTS } from '#areas/tools/queries.ts';
import { on } from '#shared/data/events.ts';
import { answer } from '#shared/data/queries.ts';
import { apiHandler } from '#shared/runtime/api-handler.ts';

/**
 * Wiring only: the logic is in areas/knowledge; each route's tenant comes resolved from its declared
 * scope. A change of a base's chunks moves its tools' kbStatus; a deleted base leaves the agents.
 */
export const handler = apiHandler(
  knowledgeRoutes,
  {
    'knowledge.bases.list': ({ tenantId, query }) => listBases(tenantId, query),
    'knowledge.bases.create': ({ tenantId, body, principal }) => createBase(tenantId, body, principal),
    'knowledge.bases.get': ({ tenantId, params }) => getBase(tenantId, params.kbId),
    'knowledge.bases.update': ({ tenantId, params, body, principal }) =>
      updateBase(tenantId, params.kbId, body, principal),
    'knowledge.bases.delete': ({ tenantId, params, principal }) => deleteBase(tenantId, params.kbId, principal),
    'knowledge.documents.upload': ({ tenantId, params, query, headers, rawBody, isBase64Encoded, principal }) =>
      uploadDocument(tenantId, params.kbId, { headers, rawBody, isBase64Encoded, title: query.title }, principal),
    'knowledge.documents.list': ({ tenantId, params, query }) => listDocuments(tenantId, params.kbId, query),
    'knowledge.documents.delete': ({ tenantId, params, principal }) =>
      deleteDocument(tenantId, params.kbId, params.documentId, principal),
    'knowledge.documents.retry': ({ tenantId, params, principal }) =>
      retryDocument(tenantId, params.kbId, params.documentId, principal),
    'knowledge.documents.chunks': ({ tenantId, params, query }) =>
      listChunks(tenantId, params.kbId, params.documentId, query),
    'knowledge.retrieve': ({ tenantId, params, body, principal, requestId }) =>
      retrieve({
        tenantId,
        kbIds: [params.kbId],
        query: body.query,
        topK: body.topK,
        mode: body.mode,
        scoreThreshold: body.scoreThreshold,
        caller: { kind: 'user', userId: principal.userId },
        requestId,
      }),
    'knowledge.mcp.mint': ({ tenantId, params, principal }) => mintMcpEndpoint(tenantId, params.kbId, principal),
    'knowledge.mcp.serve': async ({ tenantId, params, gatewayKey, headers, rawBody, rawPath, requestId }) =>
      serveMcp(await endpointFor(params.endpointId, gatewayKey, tenantId), {
        url: `https://mcp.invalid${rawPath}`,
        headers,
        body: rawBody,
        requestId,
      }),
    'knowledge.documents.presignUpload': ({ tenantId, params, body, principal }) =>
      presignDocumentUpload(tenantId, params.kbId, body, principal),
    'knowledge.documents.completeUpload': ({ tenantId, params, principal }) =>
      completeDocumentUpload(tenantId, params.kbId, params.uploadId, principal),
    'knowledge.sources.create': ({ tenantId, params, body, principal }) =>
      createSource(tenantId, params.kbId, body, principal),
    'knowledge.sources.list': ({ tenantId, params, query }) => listSources(tenantId, params.kbId, query),
    'knowledge.sources.get': ({ tenantId, params }) => getSource(tenantId, params.kbId, params.sourceId),
    'knowledge.sources.update': ({ tenantId, params, body, principal }) =>
      updateSource(tenantId, params.kbId, params.sourceId, body, principal),
    'knowledge.sources.delete': ({ tenantId, params, principal }) =>
      deleteSource(tenantId, params.kbId, params.sourceId, principal),
    'knowledge.sources.sync': ({ tenantId, params, principal }) =>
      syncSource(tenantId, params.kbId, params.sourceId, principal),
  },
  {
    tenants: tenantDirectory,
    credentials: { gatewayKey: gatewayKeyCredential },
    wiring: [
      on(CHUNKS_CHANGED, refreshAfterChunksChanged),
      on(BASE_DELETED, unbindDeletedBase),
      answer(TENANT_AGENTS, tenantAgents),
    ],
  },
);
