import * as z from 'zod/mini';
import { BIA_PARTS, PART_LIMIT } from '#areas/bcm/parts.ts';
import { ASSESSMENT_SCORE, BCM_ENUM_MAX, MAX_THRESHOLDS, THRESHOLD_SCORE } from '#areas/bcm/states.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import { isoDateTime, optionalText, pageOf, paging, text, uuid } from '#shared/routes/schemas.ts';

/** Business continuity: BIAs with entries and assignments, risks with assessments and actions. */
const read = { kind: 'bearer', permission: 'bcm:read' } as const;
const write = { kind: 'bearer', permission: 'bcm:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const enumInt = (max: number) => z.int().check(z.minimum(0), z.maximum(max));
const nullableInt = (max: number) => z.optional(z.nullable(enumInt(max)));
const assessmentScore = () => z.int().check(z.minimum(ASSESSMENT_SCORE.min), z.maximum(ASSESSMENT_SCORE.max));

/** BIA routes: a tenant user's own tenant; a SystemAdmin names it (query or body) or the BIA alone. */
const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
const ofBia = scope.tenant({ tenantFrom: 'query', record: { param: 'biaId', collection: 'BIA', label: 'BIA' } });
const ofRisk = scope.tenant({ tenantFrom: 'query', record: { param: 'riskId', collection: 'RISK', label: 'Risk' } });

const biaListItem = once(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    description: z.nullable(z.string()),
    status: z.number(),
    assignedToId: z.nullable(z.string()),
    version: z.number(),
    sourceBiaId: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const entryBrief = once(() =>
  z.object({ id: z.string(), briefDescription: z.string(), completeAt: z.nullable(z.string()) }),
);
const assignment = once(() => z.object({ userId: z.string(), userName: z.string(), type: z.number() }));
const biaDetail = once(() =>
  z.extend(biaListItem(), { assignments: z.array(assignment()), entries: z.array(entryBrief()) }),
);
const anyItems = once(() => z.array(z.record(z.string(), z.unknown())));
const entryDetail = once(() =>
  z.extend(entryBrief(), {
    digitalAssets: anyItems(),
    printedAssets: anyItems(),
    communicationSystems: anyItems(),
    productionSystems: anyItems(),
    equipmentAssets: anyItems(),
    supplierDependencies: anyItems(),
    recoveryStrategies: anyItems(),
    processDependencies: z.array(z.object({ id: z.string(), title: z.string() })),
  }),
);
const riskListItem = once(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    category: z.number(),
    level: z.number(),
    status: z.number(),
    probabilityScore: z.number(),
    impactScore: z.number(),
    createdAt: z.string(),
  }),
);
const riskDetail = once(() =>
  z.extend(riskListItem(), {
    description: z.nullable(z.string()),
    mitigationActions: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        status: z.number(),
        assessmentId: z.string(),
        dueAt: z.nullable(z.string()),
      }),
    ),
    risks: z.array(z.object({ id: z.string(), name: z.string(), score: z.number() })),
  }),
);
/** What POST .../risks answers: the created assessment (the risk's recomputed scores show in its detail). */
const assessmentRecord = once(() =>
  z.object({ id: z.string(), riskId: z.string(), name: z.string(), score: z.number(), createdAt: z.string() }),
);
/** What POST .../actions answers: the created mitigation action. */
const actionRecord = once(() =>
  z.object({
    id: z.string(),
    riskId: z.string(),
    assessmentId: z.string(),
    title: z.string(),
    description: z.nullable(z.string()),
    status: z.number(),
    dueAt: z.nullable(z.string()),
    createdAt: z.string(),
  }),
);
const threshold = once(() =>
  z.object({
    dimension: enumInt(BCM_ENUM_MAX.thresholdDimension),
    score: z.int().check(z.minimum(THRESHOLD_SCORE.min), z.maximum(THRESHOLD_SCORE.max)),
    description: text(500),
  }),
);
const dashboard = once(() =>
  z.object({
    totalAssessments: z.number(),
    criticalFunctions: z.object({ identified: z.number(), pending: z.number() }),
    activeRisks: z.object({ highImpact: z.number(), mediumImpact: z.number(), lowImpact: z.number() }),
    biaProgressOverview: z.object({
      completedEntries: z.number(),
      totalEntries: z.number(),
      percentageComplete: z.number(),
    }),
    recentActivities: z.array(z.object({ activityType: z.number(), description: z.string(), createdAt: z.string() })),
    upcomingTasks: z.array(z.object({ title: z.string(), dueAt: z.string() })),
  }),
);

const biaParams = once(() => z.object({ biaId: uuid() }));
const entryParams = once(() => z.object({ biaId: uuid(), entryId: uuid() }));
const riskParams = once(() => z.object({ riskId: uuid() }));
const assessmentParams = once(() => z.object({ riskId: uuid(), assessmentId: uuid() }));
const B = '/api/bcm/admin';
const common = { group: 'bcm' } as const;

export const bcmRoutes = defineRoutes([
  {
    ...common,
    id: 'bcm.bia.list',
    method: 'GET',
    path: `${B}/bia`,
    auth: read,
    scope: ofTenant,
    summary: 'List BIAs, newest first',
    status: 200,
    schemas: () => ({ query: z.object({ ...tenantQuery(), ...paging() }), response: pageOf(biaListItem()) }),
  },
  {
    ...common,
    id: 'bcm.bia.get',
    method: 'GET',
    path: `${B}/bia/{biaId}`,
    auth: read,
    scope: ofBia,
    summary: 'BIA detail with assignments and entry briefs',
    status: 200,
    schemas: () => ({ params: biaParams(), query: z.object(tenantQuery()), response: biaDetail() }),
  },
  {
    ...common,
    id: 'bcm.bia.create',
    method: 'POST',
    path: `${B}/bia`,
    auth: write,
    scope: ofBody,
    summary: 'Create a BIA (status defaults to Draft)',
    status: 201,
    schemas: () => ({
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        status: nullableInt(BCM_ENUM_MAX.biaStatus),
        tenantId: z.optional(uuid()),
      }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.update',
    method: 'PUT',
    path: `${B}/bia/{biaId}`,
    auth: write,
    scope: ofBia,
    summary: 'Update title and description; a Completed BIA is read-only (409 CONFLICT)',
    status: 200,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ title: z.optional(z.nullable(text(200))), description: optionalText(2000) }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.status',
    method: 'PUT',
    path: `${B}/bia/{biaId}/status`,
    auth: write,
    scope: ofBia,
    summary: 'Move a BIA: Draft→InProgress→Completed, InProgress→Draft; any other move is 409 CONFLICT',
    status: 200,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ newStatus: enumInt(BCM_ENUM_MAX.biaStatus) }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.newVersion',
    method: 'POST',
    path: `${B}/bia/{biaId}/new-version`,
    auth: write,
    scope: ofBia,
    summary: 'Copy a BIA with its entries, parts and assignments into a new Draft version',
    status: 201,
    schemas: () => ({ params: biaParams(), query: z.object(tenantQuery()), response: biaDetail() }),
  },
  {
    ...common,
    id: 'bcm.bia.delete',
    method: 'DELETE',
    path: `${B}/bia/{biaId}`,
    auth: write,
    scope: ofBia,
    summary: 'Delete a BIA with its assignments, entries and parts',
    status: 204,
    schemas: () => ({ params: biaParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'bcm.bia.assign',
    method: 'POST',
    path: `${B}/bia/{biaId}/assignments`,
    auth: write,
    scope: ofBia,
    summary: 'Assign a user or group of the tenant (the same assignee twice is 409 CONFLICT)',
    status: 201,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ userId: uuid(), type: enumInt(BCM_ENUM_MAX.assigneeType) }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.unassign',
    method: 'DELETE',
    path: `${B}/bia/{biaId}/assignments/{assignmentId}`,
    auth: write,
    scope: ofBia,
    summary: 'Remove an assignment (its id is the assigned user or group id)',
    status: 204,
    schemas: () => ({
      params: z.object({ biaId: uuid(), assignmentId: uuid() }),
      query: z.object(tenantQuery()),
    }),
  },
  {
    ...common,
    id: 'bcm.entries.list',
    method: 'GET',
    path: `${B}/bia/{biaId}/entries`,
    auth: read,
    scope: ofBia,
    summary: 'List the entry briefs of a BIA, newest first',
    status: 200,
    schemas: () => ({
      params: biaParams(),
      query: z.object({ ...tenantQuery(), ...paging() }),
      response: pageOf(entryBrief()),
    }),
  },
  {
    ...common,
    id: 'bcm.entries.get',
    method: 'GET',
    path: `${B}/bia/{biaId}/entries/{entryId}`,
    auth: read,
    scope: ofBia,
    summary: 'Entry detail with its eight part lists',
    status: 200,
    schemas: () => ({ params: entryParams(), query: z.object(tenantQuery()), response: entryDetail() }),
  },
  {
    ...common,
    id: 'bcm.entries.create',
    method: 'POST',
    path: `${B}/bia/{biaId}/entries`,
    auth: write,
    scope: ofBia,
    summary: 'Add an entry to a BIA',
    status: 201,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ briefDescription: text(500), completeAt: z.optional(z.nullable(isoDateTime())) }),
      response: entryDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.entries.update',
    method: 'PUT',
    path: `${B}/bia/{biaId}/entries/{entryId}`,
    auth: write,
    scope: ofBia,
    summary: 'Update an entry; null or absent fields stay',
    status: 200,
    schemas: () => ({
      params: entryParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        briefDescription: z.optional(z.nullable(text(500))),
        completeAt: z.optional(z.nullable(isoDateTime())),
      }),
      response: entryDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.entries.delete',
    method: 'DELETE',
    path: `${B}/bia/{biaId}/entries/{entryId}`,
    auth: write,
    scope: ofBia,
    summary: 'Delete an entry (and its parts)',
    status: 204,
    schemas: () => ({ params: entryParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'bcm.entries.complete',
    method: 'PATCH',
    path: `${B}/bia/{biaId}/entries/{entryId}/complete`,
    auth: write,
    scope: ofBia,
    summary: 'Mark an entry complete (completeAt = now when unset; idempotent)',
    status: 200,
    schemas: () => ({ params: entryParams(), query: z.object(tenantQuery()), response: entryDetail() }),
  },
  {
    ...common,
    id: 'bcm.entries.part',
    method: 'PUT',
    path: `${B}/bia/{biaId}/entries/{entryId}/{part}`,
    auth: write,
    scope: ofBia,
    summary: `Replace one part list (${BIA_PARTS.join(', ')}; another name is 404), at most ${PART_LIMIT} items`,
    status: 200,
    schemas: () => ({
      params: z.object({ biaId: uuid(), entryId: uuid(), part: text(40) }),
      query: z.object(tenantQuery()),
      body: z.array(z.record(z.string(), z.unknown())).check(z.maxLength(PART_LIMIT)),
      response: entryDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.risks.list',
    method: 'GET',
    path: `${B}/risk`,
    auth: read,
    scope: ofTenant,
    summary: 'List risks, newest first',
    status: 200,
    schemas: () => ({ query: z.object({ ...tenantQuery(), ...paging() }), response: pageOf(riskListItem()) }),
  },
  {
    ...common,
    id: 'bcm.risks.get',
    method: 'GET',
    path: `${B}/risk/{riskId}`,
    auth: read,
    scope: ofRisk,
    summary: 'Risk detail with assessments and mitigation actions',
    status: 200,
    schemas: () => ({ params: riskParams(), query: z.object(tenantQuery()), response: riskDetail() }),
  },
  {
    ...common,
    id: 'bcm.risks.create',
    method: 'POST',
    path: `${B}/risk`,
    auth: write,
    scope: ofBody,
    summary: 'Create a risk (status Identified)',
    status: 201,
    schemas: () => ({
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        category: enumInt(BCM_ENUM_MAX.riskCategory),
        level: enumInt(BCM_ENUM_MAX.riskLevel),
        tenantId: z.optional(uuid()),
      }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.risks.status',
    method: 'PUT',
    path: `${B}/risk/{riskId}/status`,
    auth: write,
    scope: ofRisk,
    summary:
      'Move a risk along Identified→Assessed→Mitigating→Monitoring→Closed (any open state may close, ' +
      'Closed reopens to Identified); others 409 CONFLICT',
    status: 200,
    schemas: () => ({
      params: riskParams(),
      query: z.object(tenantQuery()),
      body: z.object({ newStatus: enumInt(BCM_ENUM_MAX.riskStatus) }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.assessments.create',
    method: 'POST',
    path: `${B}/risk/{riskId}/risks`,
    auth: write,
    scope: ofRisk,
    summary:
      `Add an assessment (score ${ASSESSMENT_SCORE.min}-${ASSESSMENT_SCORE.max}) to a risk; answers the ` +
      `created assessment`,
    status: 201,
    schemas: () => ({
      params: riskParams(),
      query: z.object(tenantQuery()),
      body: z.object({ name: text(200), score: assessmentScore() }),
      response: assessmentRecord(),
    }),
  },
  {
    ...common,
    id: 'bcm.assessments.update',
    method: 'PUT',
    path: `${B}/risk/{riskId}/risks/{assessmentId}`,
    auth: write,
    scope: ofRisk,
    summary: 'Update an assessment; null or absent fields stay',
    status: 200,
    schemas: () => ({
      params: assessmentParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(z.nullable(text(200))),
        score: z.optional(z.nullable(assessmentScore())),
      }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.assessments.delete',
    method: 'DELETE',
    path: `${B}/risk/{riskId}/risks/{assessmentId}`,
    auth: write,
    scope: ofRisk,
    summary: 'Delete an assessment and its actions',
    status: 204,
    schemas: () => ({ params: assessmentParams(), query: z.object(tenantQuery()) }),
  },
  {
    ...common,
    id: 'bcm.actions.create',
    method: 'POST',
    path: `${B}/risk/{riskId}/risks/{assessmentId}/actions`,
    auth: write,
    scope: ofRisk,
    summary:
      'Add a mitigation action (status defaults to Pending; optional dueAt puts an open action on the ' +
      'dashboard tasks); answers the created action',
    status: 201,
    schemas: () => ({
      params: assessmentParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        status: nullableInt(BCM_ENUM_MAX.actionStatus),
        dueAt: z.optional(z.nullable(isoDateTime())),
      }),
      response: actionRecord(),
    }),
  },
  {
    ...common,
    id: 'bcm.actions.update',
    method: 'PUT',
    path: `${B}/risk/{riskId}/risks/{assessmentId}/actions/{actionId}`,
    auth: write,
    scope: ofRisk,
    summary: 'Update a mitigation action; Completed and Cancelled are final (409 CONFLICT)',
    status: 200,
    schemas: () => ({
      params: z.object({ riskId: uuid(), assessmentId: uuid(), actionId: uuid() }),
      query: z.object(tenantQuery()),
      body: z.object({
        title: z.optional(z.nullable(text(200))),
        description: optionalText(2000),
        status: nullableInt(BCM_ENUM_MAX.actionStatus),
        dueAt: z.optional(z.nullable(isoDateTime())),
      }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.thresholds.get',
    method: 'GET',
    path: `${B}/config/impact-thresholds`,
    auth: read,
    scope: ofTenant,
    summary: 'The tenant impact thresholds',
    status: 200,
    schemas: () => ({ query: z.object(tenantQuery()), response: z.array(threshold()) }),
  },
  {
    ...common,
    id: 'bcm.thresholds.put',
    method: 'PUT',
    path: `${B}/config/impact-thresholds`,
    auth: write,
    scope: ofTenant,
    summary: 'Replace the impact thresholds (one per dimension 0-9)',
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      body: z.object({ thresholds: z.array(threshold()).check(z.maxLength(MAX_THRESHOLDS)) }),
      response: z.array(threshold()),
    }),
  },
  {
    ...common,
    id: 'bcm.dashboard',
    method: 'GET',
    path: `${B}/dashboard`,
    auth: read,
    scope: ofTenant,
    summary: 'BCM figures of the tenant',
    status: 200,
    schemas: () => ({ query: z.object(tenantQuery()), response: dashboard() }),
  },
]);
