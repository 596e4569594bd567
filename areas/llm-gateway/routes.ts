import * as z from 'zod/mini';
import {
  GATEWAY_LIMITS as L,
  MODEL_KINDS,
  MODEL_NAME_PATTERN,
  PROVIDERS,
  CHAT_MAX_BODY_BYTES,
} from '#areas/llm-gateway/limits.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { V1_PATH } from '#areas/llm-gateway/wire-path.ts';
import { isoDateTime, pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import {
  budgetExceeded,
  keyExpired,
  keyRevoked,
  MODEL_CALL_REFUSALS,
  modelNotFound,
  modelOutputInvalid,
  unsupportedResponseFormat,
} from '#areas/llm-gateway/errors.ts';
import { responsesBody } from '#areas/llm-gateway/responses-body.ts';
import { formatName, formatSchema } from '#areas/llm-gateway/format-schemas.ts';

/** A gateway key's own refusals (an unknown key is the runtime's INVALID_API_KEY). */
const KEY_REFUSALS = [keyRevoked, keyExpired, budgetExceeded];
/** What asking for a shape can answer: a shape the model cannot follow, an answer that broke it. */
const FORMAT_REFUSALS = [unsupportedResponseFormat, modelOutputInvalid];

/**
 * AI LLM gateway (spec 03, "AI LLM gateway"). The `/v1` routes are OpenAI's wire format (bodies and
 * errors) for any OpenAI client: a gateway key or a user's token holding `ai:use`, streamed through the streaming
 * front door. The management routes are the platform's usual envelope.
 */
const v1Auth = { kind: 'gatewayKey', permission: 'ai:use' } as const;
const read = { kind: 'bearer', permission: 'ai:read' } as const;
const manage = { kind: 'bearer', roles: ['TenantOwner'], permission: 'ai:manage' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
const v1 = { group: 'llm-gateway', auth: v1Auth, scope: ofTenant, errorFormat: 'openai' } as const;

const utcDay = () =>
  z.string().check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date YYYY-MM-DD'),
    z.refine((v) => {
      const at = Date.parse(`${v}T00:00:00.000Z`);
      return !Number.isNaN(at) && new Date(at).toISOString().startsWith(v);
    }, 'Not a calendar date'),
  );
const modelName = () => z.string().check(z.regex(MODEL_NAME_PATTERN, 'Expected 1-100 of A-Z a-z 0-9 . _ : / -'));
const messageText = () => z.string().check(z.maxLength(L.messageChars));
/** OpenAI's content: a string or text parts (other parts are refused: the gateway carries text). */
const content = () =>
  z.union([messageText(), z.array(z.object({ type: z.literal('text'), text: messageText() })).check(z.maxLength(100))]);
const toolCall = () =>
  z.object({
    id: text(100),
    type: z.literal('function'),
    function: z.object({ name: text(64), arguments: z.string().check(z.maxLength(L.messageChars)) }),
  });
const message = () =>
  z.union([
    z.object({ role: z.literal('system'), content: content(), name: z.optional(text(64)) }),
    z.object({ role: z.literal('developer'), content: content(), name: z.optional(text(64)) }),
    z.object({ role: z.literal('user'), content: content(), name: z.optional(text(64)) }),
    z.object({
      role: z.literal('assistant'),
      content: z.optional(z.nullable(content())),
      tool_calls: z.optional(z.array(toolCall()).check(z.maxLength(L.tools))),
    }),
    z.object({ role: z.literal('tool'), content: content(), tool_call_id: text(100) }),
  ]);
const tool = () =>
  z.object({
    type: z.literal('function'),
    function: z.object({
      name: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'Expected 1-64 of A-Z a-z 0-9 _ -')),
      description: z.optional(z.string().check(z.maxLength(1024))),
      parameters: z.optional(z.record(z.string(), z.unknown())),
    }),
  });
const toolChoice = () =>
  z.union([
    z.enum(['none', 'auto', 'required']),
    z.object({ type: z.literal('function'), function: z.object({ name: text(64) }) }),
  ]);
/**
 * OpenAI parameters the gateway cannot honour are refused by name rather than ignored: a client that
 * asked for three choices or 512 dimensions and got one choice or 256 would read a wrong answer.
 */
const onlyOne = () => z.optional(z.nullable(z.literal(1, { error: 'Only n = 1 is supported (one choice per call)' })));
const unsupported = (why: string) => z.optional(z.null({ error: `Not supported: ${why}` }));
const maxTokens = () => z.int().check(z.minimum(1), z.maximum(L.maxTokens));
/** OpenAI's response_format: text, JSON mode or a JSON Schema (grammars and the like are refused by name). */
const responseFormat = () =>
  z.union(
    [
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.object({
          name: formatName(),
          description: z.optional(z.nullable(z.string().check(z.maxLength(1024)))),
          schema: z.optional(z.nullable(formatSchema())),
          strict: z.optional(z.nullable(z.boolean())),
        }),
      }),
    ],
    { error: 'Expected a response_format of type text, json_object or json_schema' },
  );
/** Token ids of o200k_base, the tokenizer the gateway counts with. */
const tokenIds = () =>
  z.array(z.int().check(z.minimum(0), z.maximum(1_000_000))).check(z.minLength(1), z.maxLength(L.embeddingChars));

/** OpenAI's streamed chat events: `chat.completion.chunk` objects (the last with `usage` when asked), or an error. */
const chatEvents = once(() => {
  const toolCallDelta = z.object({
    index: z.number(),
    id: z.optional(z.string()),
    type: z.optional(z.literal('function')),
    function: z.object({ name: z.optional(z.string()), arguments: z.optional(z.string()) }),
  });
  return z.union([
    z.object({
      id: z.string(),
      object: z.literal('chat.completion.chunk'),
      created: z.number(),
      model: z.string(),
      choices: z.array(
        z.object({
          index: z.number(),
          delta: z.object({
            role: z.optional(z.literal('assistant')),
            content: z.optional(z.nullable(z.string())),
            tool_calls: z.optional(z.array(toolCallDelta)),
          }),
          logprobs: z.null(),
          finish_reason: z.nullable(z.string()),
        }),
      ),
      usage: z.optional(
        z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
      ),
    }),
    streamError(),
  ]);
});
/** A failure after the stream began, in OpenAI's error shape. */
const streamError = once(() =>
  z
    .object({
      error: z.object({ message: z.string(), type: z.string(), code: z.string(), param: z.nullable(z.string()) }),
    })
    .check(z.meta({ description: 'The model failed after the stream began; the stream ends here' })),
);
const RESPONSES_EVENTS = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  'response.output_text.delta',
  'response.output_text.done',
  'response.content_part.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.output_item.done',
  'response.completed',
  'response.incomplete',
  'response.failed',
] as const;
/** Responses events: each names its `type` (also the SSE `event:`) and its place in the stream. */
const responsesEvents = once(() =>
  z.looseObject({
    type: z.enum(RESPONSES_EVENTS),
    sequence_number: z.number(),
    response: z.optional(z.looseObject({ id: z.string(), status: z.string() })),
    delta: z.optional(z.string()),
    item_id: z.optional(z.string()),
    output_index: z.optional(z.number()),
  }),
);

const chatBody = once(() =>
  z.object({
    model: text(200),
    messages: z.array(message()).check(z.minLength(1), z.maxLength(L.messages)),
    temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
    max_tokens: z.optional(z.nullable(maxTokens())),
    max_completion_tokens: z.optional(z.nullable(maxTokens())),
    tools: z.optional(z.array(tool()).check(z.maxLength(L.tools))),
    tool_choice: z.optional(toolChoice()),
    stream: z.optional(z.nullable(z.boolean())),
    stream_options: z.optional(z.nullable(z.object({ include_usage: z.optional(z.boolean()) }))),
    user: z.optional(z.string().check(z.maxLength(256))),
    n: onlyOne(),
    response_format: z.optional(z.nullable(responseFormat())),
  }),
);
const embeddingsBody = once(() =>
  z.object({
    model: text(200),
    input: z.union(
      [
        z.string().check(z.maxLength(L.embeddingChars)),
        z.array(z.string().check(z.maxLength(L.embeddingChars))).check(z.minLength(1), z.maxLength(L.embeddingInputs)),
        tokenIds(),
        z.array(tokenIds()).check(z.minLength(1), z.maxLength(L.embeddingInputs)),
      ],
      { error: 'Expected a string, strings, token ids or arrays of token ids' },
    ),
    encoding_format: z.optional(z.enum(['float', 'base64'])),
    dimensions: unsupported('each model answers vectors of its own size'),
    user: z.optional(z.string().check(z.maxLength(256))),
  }),
);

const gatewayKey = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    models: z.nullable(z.array(z.string())),
    maxBudgetUsd: z.nullable(z.number()),
    spendUsd: z.number(),
    rpmLimit: z.nullable(z.number()),
    tpmLimit: z.nullable(z.number()),
    expiresAt: z.nullable(z.string()),
    revokedAt: z.nullable(z.string()),
    lastUsedAt: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const usageRow = once(() => ({
  requests: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  spendUsd: z.number(),
}));
const gatewayUsage = once(() =>
  z.object({
    month: z.string(),
    startDate: z.string(),
    endDate: z.string(),
    tokensUsed: z.number(),
    tokensReserved: z.number(),
    tokenAllowance: z.number(),
    spendUsd: z.number(),
    models: z.array(z.object({ model: z.string(), ...usageRow() })),
    keys: z.array(z.object({ keyId: z.string(), ...usageRow() })),
  }),
);
const catalogEntry = once(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    provider: z.enum(PROVIDERS),
    providerModel: z.string(),
    kind: z.enum(MODEL_KINDS),
    inputPricePerMillion: z.number(),
    outputPricePerMillion: z.number(),
    contextWindow: z.number(),
    fallbackModelIds: z.array(z.string()),
    isActive: z.boolean(),
    baseUrl: z.nullable(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const price = () => z.number().check(z.minimum(0), z.maximum(L.price));
const limitInt = (max: number) => z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(max))));
const baseUrl = () =>
  z
    .string()
    .check(
      z.maxLength(500),
      z.regex(
        /^(https:\/\/[^\s/?#]+|http:\/\/(localhost|127\.0\.0\.1)(:\d+)?)(\/[^\s?#]*)?$/,
        'Expected an https URL (http only for localhost)',
      ),
    );

const G = '/api/llm-gateway';

export const llmGatewayRoutes = defineRoutes([
  {
    ...v1,
    id: 'llmGateway.chatCompletions',
    eventStream: 'with `stream: true`: `chat.completion.chunk` objects, then `data: [DONE]`',
    method: 'POST',
    path: `${V1_PATH}/chat/completions`,
    summary:
      'OpenAI chat completion (plain, or streamed as chat.completion.chunk events ending `data: [DONE]`), response_format json_object or json_schema; refusals 401 invalid_api_key, 404 model_not_found, 429 rate_limit_exceeded, budget_exceeded or insufficient_quota',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'application/json' },
    maxBodyBytes: CHAT_MAX_BODY_BYTES,
    errors: [...MODEL_CALL_REFUSALS, ...KEY_REFUSALS, ...FORMAT_REFUSALS],
    schemas: () => ({ query: z.object(tenantQuery()), body: chatBody(), events: chatEvents() }),
  },
  {
    ...v1,
    id: 'llmGateway.responses',
    eventStream:
      'with `stream: true`: Responses events (`response.created`, `response.output_text.delta`, `response.function_call_arguments.delta`, `response.completed`; `response.failed` when the model fails after the stream began)',
    method: 'POST',
    path: `${V1_PATH}/responses`,
    summary:
      'OpenAI Responses API: text or message, function_call and function_call_output items, instructions, function tools, text.format json_object or json_schema; stored 30 days for previous_response_id and item_reference unless store is false; refusals as for chat completions',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'application/json' },
    maxBodyBytes: CHAT_MAX_BODY_BYTES,
    errors: [...MODEL_CALL_REFUSALS, ...KEY_REFUSALS, ...FORMAT_REFUSALS],
    schemas: () => ({ query: z.object(tenantQuery()), body: responsesBody(), events: responsesEvents() }),
  },
  {
    ...v1,
    id: 'llmGateway.embeddings',
    method: 'POST',
    path: `${V1_PATH}/embeddings`,
    summary: 'OpenAI embedding list for a string, strings, token ids or arrays of token ids (o200k_base), with usage',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'application/json' },
    maxBodyBytes: CHAT_MAX_BODY_BYTES,
    errors: [...MODEL_CALL_REFUSALS, ...KEY_REFUSALS],
    schemas: () => ({ query: z.object(tenantQuery()), body: embeddingsBody() }),
  },
  {
    ...v1,
    id: 'llmGateway.models',
    method: 'GET',
    path: `${V1_PATH}/models`,
    summary: 'OpenAI model list: the active catalog models this caller (its key) may use',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'application/json' },
    schemas: () => ({ query: z.object(tenantQuery()) }),
  },
  {
    ...v1,
    id: 'llmGateway.model',
    method: 'GET',
    path: `${V1_PATH}/models/{model}`,
    summary: 'OpenAI model object of one active catalog model this caller (its key) may use, by name',
    status: 200,
    transport: 'stream',
    rawResponse: { contentType: 'application/json' },
    errors: [modelNotFound],
    schemas: () => ({ params: z.object({ model: text(200) }), query: z.object(tenantQuery()) }),
  },
  {
    group: 'llm-gateway',
    id: 'llmGateway.keys.list',
    method: 'GET',
    path: `${G}/keys`,
    auth: read,
    scope: ofTenant,
    summary: 'Gateway keys of the tenant, newest first (secrets are never shown again)',
    status: 200,
    schemas: () => ({ query: z.object({ ...tenantQuery(), ...paging() }), response: pageOf(gatewayKey()) }),
  },
  {
    group: 'llm-gateway',
    id: 'llmGateway.keys.create',
    method: 'POST',
    path: `${G}/keys`,
    auth: manage,
    scope: ofBody,
    summary: 'Create a gateway key; the answer carries its secret `key` (gk_...), shown only here',
    status: 201,
    schemas: () => ({
      body: z.object({
        name: text(100),
        models: z.optional(z.nullable(z.array(modelName()).check(z.minLength(1), z.maxLength(L.keyModels)))),
        maxBudgetUsd: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(L.budgetUsd)))),
        rpmLimit: limitInt(L.rpm),
        tpmLimit: limitInt(L.tpm),
        // A key born expired would only ever answer 401: refused here, where the mistake is made.
        expiresAt: z.optional(
          z.nullable(isoDateTime().check(z.refine((v) => Date.parse(v) > Date.now(), 'Expected a time in the future'))),
        ),
        tenantId: z.optional(uuid()),
      }),
      response: z.extend(gatewayKey(), { key: z.string() }),
    }),
  },
  {
    group: 'llm-gateway',
    id: 'llmGateway.keys.revoke',
    method: 'DELETE',
    path: `${G}/keys/{keyId}`,
    auth: manage,
    scope: scope.tenant({
      tenantFrom: 'query',
      record: { param: 'keyId', collection: 'GATEWAY_KEY', label: 'Gateway key' },
    }),
    summary: 'Revoke a gateway key: its next call is refused (401 invalid_api_key)',
    status: 204,
    schemas: () => ({ params: z.object({ keyId: uuid() }), query: z.object(tenantQuery()) }),
  },
  {
    group: 'llm-gateway',
    id: 'llmGateway.usage',
    method: 'GET',
    path: `${G}/usage`,
    auth: read,
    scope: ofTenant,
    summary:
      "The month's tokens against the allowance (maxTokensPerMonth), and per model and per key over startDate..endDate (UTC days, default the last 30)",
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), startDate: z.optional(utcDay()), endDate: z.optional(utcDay()) }),
      response: gatewayUsage(),
    }),
  },
  {
    group: 'llm-gateway',
    id: 'llmGateway.models.put',
    alsoAnswers: [{ status: 201, when: 'no model had this id' }],
    method: 'PUT',
    path: `${G}/models/{modelId}`,
    auth: { kind: 'bearer', roles: ['SystemAdmin'] },
    scope: scope.platform,
    summary:
      'Create (201) or replace (200) a model catalog entry (name unique; fallbacks: other models of the same kind)',
    status: 200,
    schemas: () => ({
      params: z.object({ modelId: uuid() }),
      body: z.object({
        name: modelName(),
        provider: z.enum(PROVIDERS),
        providerModel: text(200),
        kind: z.enum(MODEL_KINDS),
        inputPricePerMillion: price(),
        outputPricePerMillion: price(),
        contextWindow: z.int().check(z.minimum(1), z.maximum(L.contextWindow)),
        fallbackModelIds: z._default(z.array(uuid()).check(z.maxLength(L.fallbacks)), []),
        isActive: z._default(z.boolean(), true),
        baseUrl: z.optional(z.nullable(baseUrl())),
        apiKeySecret: z.optional(
          z.nullable(
            z
              .string()
              .check(
                z.regex(
                  /^[a-z0-9-]{1,32}\/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/,
                  'Expected {environment}/{KEY} of a vault secret',
                ),
              ),
          ),
        ),
      }),
      response: catalogEntry(),
    }),
  },
]);
