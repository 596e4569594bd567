import * as z from 'zod/mini';
import { defineRoutes, once } from './types.ts';
import { isoDateTime, optionalText, pageOf, paging, text, uuid } from './schemas.ts';

/** Business continuity: BIAs with entries and assignments, risks with assessments and actions. */
const read = { kind: 'bearer', permission: 'bcm:read' } as const;
const write = { kind: 'bearer', permission: 'bcm:write' } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));
const enumInt = (max: number) => z.int().check(z.minimum(0), z.maximum(max));
const nullableInt = (max: number) => z.optional(z.nullable(enumInt(max)));

export const BIA_PARTS = [
  'digital-assets',
  'printed-assets',
  'communication-systems',
  'production-systems',
  'equipment-assets',
  'supplier-dependencies',
  'recovery-strategies',
  'process-dependencies',
] as const;
export type BiaPart = (typeof BIA_PARTS)[number];
/** Items per part list. */
export const PART_LIMIT = 200;

const name = () => text(200);
const note = () => z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(1000))));
const quantity = () => z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(1_000_000))));

/** Item schema per part, as the entry detail record shows them. */
export const PART_ITEMS = once(
  () =>
    ({
      'digital-assets': z.object({ name: name(), description: note() }),
      'printed-assets': z.object({ name: name(), quantity: quantity() }),
      'communication-systems': z.object({ name: name(), type: text(100) }),
      'production-systems': z.object({ name: name(), type: text(100) }),
      'equipment-assets': z.object({ name: name(), quantity: quantity() }),
      'supplier-dependencies': z.object({ name: name(), contactName: optionalText(200) }),
      'recovery-strategies': z.object({ category: text(100), description: note() }),
      'process-dependencies': z.object({ id: uuid() }),
    }) as const,
);

/** Field of the entry record each part fills. */
export const PART_FIELDS: Record<BiaPart, string> = {
  'digital-assets': 'digitalAssets',
  'printed-assets': 'printedAssets',
  'communication-systems': 'communicationSystems',
  'production-systems': 'productionSystems',
  'equipment-assets': 'equipmentAssets',
  'supplier-dependencies': 'supplierDependencies',
  'recovery-strategies': 'recoveryStrategies',
  'process-dependencies': 'processDependencies',
};

export const biaListItem = once(() =>
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
export const biaDetail = once(() =>
  z.extend(biaListItem(), { assignments: z.array(assignment()), entries: z.array(entryBrief()) }),
);
const anyItems = once(() => z.array(z.record(z.string(), z.unknown())));
export const entryDetail = once(() =>
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
export const riskListItem = once(() =>
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
export const riskDetail = once(() =>
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
const threshold = once(() =>
  z.object({ dimension: enumInt(9), score: z.int().check(z.minimum(1), z.maximum(5)), description: text(500) }),
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
    summary: 'Create a BIA (status defaults to Draft)',
    status: 201,
    schemas: () => ({
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        status: nullableInt(2),
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
    summary: 'Move a BIA: Draft→InProgress→Completed, InProgress→Draft; any other move is 409 CONFLICT',
    status: 200,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ newStatus: enumInt(2) }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.newVersion',
    method: 'POST',
    path: `${B}/bia/{biaId}/new-version`,
    auth: write,
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
    summary: 'Assign a user or group of the tenant (the same assignee twice is 409 CONFLICT)',
    status: 201,
    schemas: () => ({
      params: biaParams(),
      query: z.object(tenantQuery()),
      body: z.object({ userId: uuid(), type: enumInt(1) }),
      response: biaDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.bia.unassign',
    method: 'DELETE',
    path: `${B}/bia/{biaId}/assignments/{assignmentId}`,
    auth: write,
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
    summary: 'Create a risk (status Identified)',
    status: 201,
    schemas: () => ({
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        category: enumInt(4),
        level: enumInt(3),
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
    summary:
      'Move a risk along Identified→Assessed→Mitigating→Monitoring→Closed (any open state may close, Closed reopens to Identified); others 409 CONFLICT',
    status: 200,
    schemas: () => ({
      params: riskParams(),
      query: z.object(tenantQuery()),
      body: z.object({ newStatus: enumInt(4) }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.assessments.create',
    method: 'POST',
    path: `${B}/risk/{riskId}/risks`,
    auth: write,
    summary: 'Add an assessment (score 1-25) to a risk',
    status: 201,
    schemas: () => ({
      params: riskParams(),
      query: z.object(tenantQuery()),
      body: z.object({ name: text(200), score: z.int().check(z.minimum(1), z.maximum(25)) }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.assessments.update',
    method: 'PUT',
    path: `${B}/risk/{riskId}/risks/{assessmentId}`,
    auth: write,
    summary: 'Update an assessment; null or absent fields stay',
    status: 200,
    schemas: () => ({
      params: assessmentParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        name: z.optional(z.nullable(text(200))),
        score: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(25)))),
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
    summary:
      'Add a mitigation action (status defaults to Pending; optional dueAt puts an open action on the dashboard tasks)',
    status: 201,
    schemas: () => ({
      params: assessmentParams(),
      query: z.object(tenantQuery()),
      body: z.object({
        title: text(200),
        description: optionalText(2000),
        status: nullableInt(3),
        dueAt: z.optional(z.nullable(isoDateTime())),
      }),
      response: riskDetail(),
    }),
  },
  {
    ...common,
    id: 'bcm.actions.update',
    method: 'PUT',
    path: `${B}/risk/{riskId}/risks/{assessmentId}/actions/{actionId}`,
    auth: write,
    summary: 'Update a mitigation action; Completed and Cancelled are final (409 CONFLICT)',
    status: 200,
    schemas: () => ({
      params: z.object({ riskId: uuid(), assessmentId: uuid(), actionId: uuid() }),
      query: z.object(tenantQuery()),
      body: z.object({
        title: z.optional(z.nullable(text(200))),
        description: optionalText(2000),
        status: nullableInt(3),
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
    summary: 'Replace the impact thresholds (one per dimension 0-9)',
    status: 200,
    schemas: () => ({
      query: z.object(tenantQuery()),
      body: z.object({ thresholds: z.array(threshold()).check(z.maxLength(10)) }),
      response: z.array(threshold()),
    }),
  },
  {
    ...common,
    id: 'bcm.dashboard',
    method: 'GET',
    path: `${B}/dashboard`,
    auth: read,
    summary: 'BCM figures of the tenant',
    status: 200,
    schemas: () => ({ query: z.object(tenantQuery()), response: dashboard() }),
  },
]);
