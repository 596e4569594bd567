import type * as Sdk from '@modelcontextprotocol/server';
import { listChunks } from './documents.ts';
import type { McpEndpointRecord } from './mcp-endpoint.ts';
import { retrieve } from './retrieve.ts';
import { RETRIEVE_MODES, TOP_K } from './vocabulary.ts';

/**
 * The MCP server one endpoint answers with: `search` (retrieval over the endpoint's base, in any of
 * its modes) and `fetch` (a document's chunks in order, a page at a time). Both only read, and say so.
 * Searches are metered to the person who minted the endpoint, as their own retrievals are. The SDK
 * comes in as an argument (a lazy package: a static import would load it at every cold start), and
 * the input schemas are JSON Schema, checked by the SDK's own validator.
 */
const CHUNKS_PER_PAGE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type SearchArgs = { query: string; mode?: (typeof RETRIEVE_MODES)[number]; topK?: number };
type FetchArgs = { documentId: string; page?: number };

export function knowledgeMcpServer(sdk: typeof Sdk, endpoint: McpEndpointRecord, requestId: string) {
  const server = new sdk.McpServer({ name: 'knowledge', version: '1.0.0' });
  server.registerTool(
    'search',
    {
      description: 'Search the knowledge base: the passages that best answer a query, best first',
      inputSchema: sdk.fromJsonSchema<SearchArgs>({
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 4000 },
          mode: {
            type: 'string',
            enum: [...RETRIEVE_MODES],
            description: 'keyword (BM25), semantic or hybrid (default)',
          },
          topK: { type: 'integer', minimum: TOP_K.min, maximum: TOP_K.max },
        },
        required: ['query'],
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ query, mode, topK }: SearchArgs) => {
      const matches = await retrieve({
        tenantId: endpoint.tenantId,
        kbIds: [endpoint.kbId],
        query,
        topK: topK ?? null,
        mode: mode ?? null,
        caller: { kind: 'user', userId: endpoint.createdBy },
        requestId,
      });
      const results = matches.map((m) => ({
        documentId: m.documentId,
        documentTitle: m.documentTitle,
        chunkId: m.chunkId,
        position: m.position,
        score: m.score,
        text: m.text,
      }));
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(results) }],
        structuredContent: { results },
      };
    },
  );
  server.registerTool(
    'fetch',
    {
      description: "A document's text: its chunks in order, 50 to a page",
      inputSchema: sdk.fromJsonSchema<FetchArgs>({
        type: 'object',
        properties: {
          documentId: { type: 'string', pattern: UUID.source },
          page: { type: 'integer', minimum: 1, maximum: 10_000 },
        },
        required: ['documentId'],
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ documentId, page }: FetchArgs) => {
      try {
        const found = await listChunks(endpoint.tenantId, endpoint.kbId, documentId, {
          page: page ?? 1,
          pageSize: CHUNKS_PER_PAGE,
        });
        const chunks = found.items.map((c) => ({ position: c.position, text: c.text }));
        const result = { documentId, page: found.page, totalPages: found.totalPages, chunks };
        return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: result };
      } catch {
        return { content: [{ type: 'text' as const, text: 'No such document in this knowledge base' }], isError: true };
      }
    },
  );
  return server;
}
