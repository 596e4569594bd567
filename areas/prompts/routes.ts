import * as z from 'zod/mini';
import { MAX_CONTENT_BYTES, MAX_TAGS, PROMPT_STATUSES, VERSION_STATUSES } from '#areas/prompts/lifecycle.ts';
import { EVALUATION_MODEL_SOURCES, EVALUATION_STATUSES, SMALL_SAMPLE } from '#areas/prompts/records.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { optionalText, pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';
import { limitReached } from '#areas/prompts/errors.ts';

/** AI prompts: records with a working text, immutable versions with a review lifecycle, rendering. */
const read = { kind: 'bearer', permission: 'prompts:read' } as const;
const write = { kind: 'bearer', permission: 'prompts:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
/** A SystemAdmin may name a prompt by its id alone. */
const ofPrompt = scope.tenant({
  tenantFrom: 'query',
  record: { param: 'promptId', collection: 'PROMPT', label: 'Prompt' },
});

const content = () =>
  z.string().check(
    z.minLength(1),
    z.refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_CONTENT_BYTES, `At most ${MAX_CONTENT_BYTES} bytes (100 KB)`),
  );
const temperature = () => z.number().check(z.minimum(0), z.maximum(2));
const tags = () => z.array(text(50)).check(z.maxLength(MAX_TAGS));

const promptVersion = once(() =>
  z.object({
    id: z.string(),
    versionNumber: z.string(),
    content: z.string(),
    placeholders: z.array(z.string()),
    status: z.enum(VERSION_STATUSES),
    changedBy: z.string(),
    versionNote: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const promptListItem = once(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    modelId: z.nullable(z.string()),
    temperature: z.number(),
    lifecycleStatus: z.enum(PROMPT_STATUSES),
    tags: z.array(z.string()),
    activeVersionId: z.nullable(z.string()),
    versionCount: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const promptDetail = once(() =>
  z.extend(promptListItem(), {
    content: z.string(),
    placeholders: z.array(z.string()),
    abTestConfig: z.object({ variantA: z.boolean(), variantB: z.boolean() }),
    autoEvaluationScores: z.object({ quality: z.nullable(z.number()), safety: z.nullable(z.number()) }),
    versions: z.array(promptVersion()),
  }),
);

const promptParams = once(() => z.object({ promptId: uuid() }));
const versionParams = once(() => z.object({ promptId: uuid(), versionId: uuid() }));
const testCaseParams = once(() => z.object({ promptId: uuid(), testCaseId: uuid() }));
const phrases = () => z.array(text(200)).check(z.maxLength(20));
const testCase = once(() =>
  z.object({
    id: z.string(),
    question: z.string(),
    mustContain: z.array(z.string()),
    mustNotContain: z.array(z.string()),
    knowledgeBaseId: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const evaluation = once(() =>
  z.object({
    versionId: z.string(),
    status: z.enum(EVALUATION_STATUSES),
    quality: z.nullable(z.number()),
    safety: z.nullable(z.number()),
    cases: z.array(
      z.object({
        kind: z.enum(['testCase', 'safety']),
        name: z.string(),
        question: z.string(),
        passed: z.boolean(),
        score: z.number(),
        checks: z.array(z.object({ check: z.string(), passed: z.boolean() })),
        answer: z.string(),
      }),
    ),
    error: z.nullable(z.string()),
    model: z.nullable(z.object({ id: z.string(), name: z.string(), source: z.enum(EVALUATION_MODEL_SOURCES) })).check(
      z.meta({
        description:
          "The chat model the run answered with: the prompt's own (source prompt), or, when the prompt names none, the platform's default chat model, the one a call naming no model gets (source platformDefault); null until the run starts",
      }),
    ),
    requestedAt: z.string(),
    finishedAt: z.nullable(z.string()),
  }),
);
const variantResults = () =>
  z.object({
    conversations: z.number(),
    closed: z.number(),
    resolutionRate: z.nullable(z.number()),
    escalationRate: z.nullable(z.number()),
    csat: z.nullable(z.number()),
    csatResponses: z.number(),
    tokens: z.number(),
    tokensPerConversation: z.nullable(z.number()),
    note: z.nullable(z.string()),
  });
const abGuard = () =>
  z.object({
    margin: z.number().check(z.minimum(0), z.maximum(100)),
    minConversations: z.int().check(z.minimum(1), z.maximum(1_000_000)),
  });
const abTest = once(() =>
  z.object({
    testId: z.string(),
    versionAId: z.string(),
    versionBId: z.string(),
    shareB: z.number(),
    guard: z.nullable(abGuard()),
    guardTrippedAt: z.nullable(z.string()),
    startedAt: z.string(),
    updatedAt: z.string(),
    results: z.object({ A: variantResults(), B: variantResults() }),
  }),
);
const P = '/api/prompts';
const common = { group: 'prompts' } as const;

export const promptRoutes = defineRoutes([
  {
    ...common,
    id: 'prompts.list',
    method: 'GET',
    path: P,
    auth: read,
    scope: ofTenant,
    summary: 'List prompts, newest first; archived prompts only with includeArchived=true',
    status: 200,
    schemas: () => ({
      query: z.object({ ...tenantQuery(), ...paging(), includeArchived: z.optional(z.enum(['true', 'false'])) }),
      response: pageOf(promptListItem()),
    }),
  },
  {
    ...common,
    id: 'prompts.create',
    method: 'POST',
    path: P,
    auth: write,
    scope: ofBody,
    summary: 'Create a prompt; its content becomes version 1 (Draft). Malformed {{placeholders}} are 400',
    status: 201,
    schemas: () => ({
      body: z.object({
        title: text(200),
        content: content(),
        modelId: z.optional(z.nullable(uuid())),
        temperature: z.optional(temperature()),
        tags: z.optional(tags()),
        tenantId: z.optional(uuid()),
      }),
      response: promptDetail(),
    }),
  },
  {
    ...common,
    id: 'prompts.get',
    method: 'GET',
    path: `${P}/{promptId}`,
    auth: read,
    scope: ofPrompt,
    summary: 'Prompt detail with its newest 50 versions (all through the versions list)',
    status: 200,
    schemas: () => ({ params: promptParams(), query: z.object(tenantQuery()), response: promptDetail() }),
  },
  {
    ...common,
    id: 'prompts.update',
    method: 'PUT',
    path: `${P}/{promptId}`,
    auth: write,
    scope: ofPrompt,
    summary:
      'Update the working text and settings (absent fields stay); versions are not changed; an archived prompt is 409',
    status: 200,
    schemas: () => ({
      params: promptParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        title: z.optional(text(200)),
        content: z.optional(content()),
        modelId: z.optional(z.nullable(uuid())),
        temperature: z.optional(temperature()),
        tags: z.optional(tags()),
      }),
      response: promptDetail(),
    }),
  },
  {
    ...common,
    id: 'prompts.delete',
    method: 'DELETE',
    path: `${P}/{promptId}`,
    auth: write,
    scope: ofPrompt,
    summary: 'Archive a prompt (soft delete: the record is kept, read-only and hidden from the list)',
    status: 204,
    schemas: () => ({ params: promptParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'prompts.newVersion',
    method: 'POST',
    path: `${P}/{promptId}/new-version`,
    auth: write,
    scope: ofPrompt,
    summary: "Snapshot the prompt's current content as a new Draft version with the next number",
    status: 201,
    errors: [limitReached],
    schemas: () => ({
      params: promptParams(),
      query: z.object(tenantQuery()),
      body: z.object({ versionNote: optionalText(500) }),
      response: promptVersion(),
    }),
  },
  {
    ...common,
    id: 'prompts.versions',
    method: 'GET',
    path: `${P}/{promptId}/versions`,
    auth: read,
    scope: ofPrompt,
    summary: 'List the versions of a prompt, newest first',
    status: 200,
    schemas: () => ({
      params: promptParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(promptVersion()),
    }),
  },
  {
    ...common,
    id: 'prompts.review',
    method: 'PUT',
    path: `${P}/{promptId}/versions/{versionId}/review`,
    auth: write,
    scope: ofPrompt,
    summary:
      'Send a Draft version to Review (any other state is 409); its evaluation (test cases and the safety set) is queued',
    status: 204,
    schemas: () => ({ params: versionParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'prompts.approve',
    method: 'PUT',
    path: `${P}/{promptId}/versions/{versionId}/approve`,
    auth: write,
    scope: ofPrompt,
    summary:
      "Approve a Review version: it becomes the prompt's Active version and the previous Active one " +
      'Archived (any other state is 409)',
    status: 204,
    schemas: () => ({
      params: versionParams(),
      query: z.object(tenantQuery()),
    }),
  },
  {
    ...common,
    id: 'prompts.testCases.create',
    method: 'POST',
    path: `${P}/{promptId}/test-cases`,
    auth: write,
    scope: ofPrompt,
    summary:
      'Add a test case every evaluation of the prompt runs: a question, what a good answer must and must not contain, optionally a knowledge base to answer from (at most 50 per prompt, 409 LIMIT_REACHED)',
    status: 201,
    errors: [limitReached],
    schemas: () => ({
      params: promptParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        question: text(2000),
        mustContain: phrases(),
        mustNotContain: phrases(),
        knowledgeBaseId: z.optional(z.nullable(uuid())),
      }),
      response: testCase(),
    }),
  },
  {
    ...common,
    id: 'prompts.testCases.list',
    method: 'GET',
    path: `${P}/{promptId}/test-cases`,
    auth: read,
    scope: ofPrompt,
    summary: "The prompt's test cases, oldest first",
    status: 200,
    schemas: () => ({
      params: promptParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(testCase()),
    }),
  },
  {
    ...common,
    id: 'prompts.testCases.delete',
    method: 'DELETE',
    path: `${P}/{promptId}/test-cases/{testCaseId}`,
    auth: write,
    scope: ofPrompt,
    summary: 'Remove a test case (later evaluations no longer run it)',
    status: 204,
    schemas: () => ({ params: testCaseParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'prompts.evaluation',
    method: 'GET',
    path: `${P}/{promptId}/versions/{versionId}/evaluation`,
    auth: read,
    scope: ofPrompt,
    summary:
      "A version's evaluation, queued when it was sent to review: status, quality (its test cases) and safety (the built-in set) 0-100, and each case's checks; 404 for a version never sent to review",
    status: 200,
    schemas: () => ({ params: versionParams(), query: z.object(tenantQuery()), response: evaluation() }),
  },
  {
    ...common,
    id: 'prompts.abTest.put',
    method: 'PUT',
    path: `${P}/{promptId}/ab-test`,
    auth: write,
    scope: ofPrompt,
    summary:
      'Start or change the A/B test between two approved versions: shareB percent of new conversations get B. The same two versions keep the counters; others start afresh. A version not of the prompt or A = B is 400, one never approved 409',
    status: 200,
    schemas: () => ({
      params: promptParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        versionAId: uuid(),
        versionBId: uuid(),
        shareB: z.number().check(z.minimum(0), z.maximum(100)),
        guard: z.nullable(abGuard()),
      }),
      response: abTest(),
    }),
  },
  {
    ...common,
    id: 'prompts.abTest.get',
    method: 'GET',
    path: `${P}/{promptId}/ab-test`,
    auth: read,
    scope: ofPrompt,
    summary: `The running A/B test with per-variant results (a note under ${SMALL_SAMPLE} conversations); null when none runs`,
    status: 200,
    schemas: () => ({ params: promptParams(), query: z.object(tenantQuery()), response: z.nullable(abTest()) }),
  },
  {
    ...common,
    id: 'prompts.abTest.delete',
    method: 'DELETE',
    path: `${P}/{promptId}/ab-test`,
    auth: write,
    scope: ofPrompt,
    summary: "End the A/B test: new conversations get the agent's pinned version; started ones keep their variant",
    status: 204,
    schemas: () => ({ params: promptParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'prompts.render',
    method: 'POST',
    path: `${P}/{promptId}/render`,
    auth: read,
    scope: ofPrompt,
    summary:
      'Render the Active version (or versionId) with variables; a missing variable is 400 naming it; ' +
      'values are inserted literally',
    status: 200,
    schemas: () => ({
      params: promptParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        variables: z.record(z.string().check(z.maxLength(100)), z.string().check(z.maxLength(MAX_CONTENT_BYTES))),
        versionId: z.optional(uuid()),
      }),
      response: z.object({ promptId: z.string(), versionId: z.string(), versionNumber: z.string(), text: z.string() }),
    }),
  },
]);
