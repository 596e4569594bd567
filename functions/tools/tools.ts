import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst, putNew } from '#shared/data/collection.ts';
import { commitChange, readOr404, updateItem, type Item } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS } from '#shared/reference/built-in-tools.ts';
import { nextToolStatus, writeAccessRefusal, type ToolAction, type ToolStatus } from './lifecycle.ts';

export const tools = {
  key: (t: string, id: string) => keys.tenantItem(t, 'TOOL', id),
  collection: (t: string) => keys.tenantCollection(t, 'TOOL'),
  /** Deleted tools leave the list for this gsi1 partition (kept for the audit trail). */
  deleted: (t: string) => keys.archived(keys.tenantCollection(t, 'TOOL')),
};

export interface Params {
  maxRows: number;
  readOnly: boolean;
  timeoutSeconds: number;
}
export const DEFAULT_PARAMS: Params = { maxRows: 100, readOnly: true, timeoutSeconds: 30 };
interface Schema {
  databaseType: string | null;
  schemaName: string | null;
  tables: string[];
  connectionString: string | null;
}
const EMPTY_SCHEMA: Schema = { databaseType: null, schemaName: null, tables: [], connectionString: null };

/** The built-in catalog is code (shared/reference/built-in-tools.ts): fixed ids, no table read. */
export function listBuiltIn(q: { page: number; pageSize: number }) {
  const start = (q.page - 1) * q.pageSize;
  const items = BUILT_IN_TOOLS.slice(start, start + q.pageSize).map(
    ({ id, code, name, description, type, isActive }) => ({ id, code, name, description, type, isActive }),
  );
  return toPage(items, BUILT_IN_TOOLS.length, q.page, q.pageSize);
}

function builtIn(baseToolId: string) {
  const base = BUILT_IN_TOOLS.find((b) => b.id === baseToolId.toLowerCase());
  if (!base) throw validationError([{ path: 'body.baseToolId', message: 'No such built-in tool' }]);
  return base;
}

export const toConfig = (i: Item) => ({
  id: i.id as string,
  displayName: i.displayName as string,
  description: (i.description as string | null) ?? null,
  baseToolId: i.baseToolId as string,
  type: i.type as string,
  status: i.status as ToolStatus,
  schema: { ...EMPTY_SCHEMA, ...(i.schema as Partial<Schema> | undefined) },
  kbStatus: { hasChunks: Number(i.chunkCount ?? 0) > 0, chunkCount: Number(i.chunkCount ?? 0) },
});
export const toParams = (i: Item): Params => ({
  ...DEFAULT_PARAMS,
  ...(i.configParams as Partial<Params> | undefined),
});
const toDetail = (i: Item) => ({
  ...toConfig(i),
  baseToolName: i.baseToolName as string,
  agentIds: (i.agentIds as string[]) ?? [],
  configParams: toParams(i),
  createdAt: i.createdAt as string,
  updatedAt: i.updatedAt as string,
});

const searchText = (displayName: string, description: string | null) =>
  `${displayName} ${description ?? ''}`.toLowerCase();

function checkWriteAccess(baseToolCode: string, status: ToolStatus, params: Params) {
  const refusal = writeAccessRefusal(baseToolCode, status, params.readOnly);
  if (refusal) throw validationError([{ path: 'body.configParams.readOnly', message: refusal }]);
}

export async function createTool(
  t: string,
  input: { displayName?: string; baseToolId: string; description?: string | null; configParams?: Partial<Params> },
  actor: Principal,
) {
  const base = builtIn(input.baseToolId);
  const params = { ...DEFAULT_PARAMS, ...stripUndefined(input.configParams ?? {}) };
  checkWriteAccess(base.code, 'PENDING', params);
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const displayName = input.displayName ?? base.name;
  const description = input.description === undefined ? base.description : input.description || null;
  const item = {
    ...tools.key(t, id),
    ...keys.newestFirst(tools.collection(t), now, id),
    id,
    tenantId: t,
    displayName,
    description,
    searchText: searchText(displayName, description),
    baseToolId: base.id,
    baseToolCode: base.code,
    baseToolName: base.name,
    type: base.type,
    status: 'PENDING',
    agentIds: [],
    schema: EMPTY_SCHEMA,
    chunkCount: 0,
    configParams: params,
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [putNew(item), bumpCounter(tools.collection(t), 1)],
    {
      tenantId: t,
      actor,
      entityType: 'Tool',
      entityId: id,
      action: 'create',
      changes: { displayName, baseToolId: base.id, status: 'PENDING' },
    },
    now,
  );
  return toDetail(item);
}

const stripUndefined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** A tool that is not deleted, or 404. */
export async function getTool(t: string, id: string) {
  const item = await readOr404(tools.key(t, id), 'Tool');
  if (item.deletedAt) throw notFound('Tool');
  return item;
}

const LIVE = 'attribute_exists(pk) AND attribute_not_exists(deletedAt) AND #status = :status';

/** A change to a tool's fields, conditional on the tool being unchanged in status and not deleted. */
async function changeTool(
  t: string,
  tool: Item,
  set: Record<string, unknown>,
  actor: Principal,
  action: string,
  changes: Record<string, unknown>,
) {
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        tools.key(t, tool.id as string),
        { ...set, updatedAt: now },
        { condition: LIVE, names: { '#status': 'status' }, values: { ':status': tool.status } },
      ),
    ],
    { tenantId: t, actor, entityType: 'Tool', entityId: tool.id as string, action, changes },
    now,
    'The tool changed meanwhile; try again',
  );
  return getTool(t, tool.id as string);
}

function editable(tool: Item) {
  if (tool.status === 'REJECTED') throw conflict('A REJECTED tool cannot be changed');
}

export async function updateTool(
  t: string,
  id: string,
  input: { displayName?: string; description?: string | null; agentIds?: string[]; configParams?: Partial<Params> },
  actor: Principal,
) {
  const tool = await getTool(t, id);
  editable(tool);
  const set: Record<string, unknown> = {};
  if (input.displayName !== undefined) set.displayName = input.displayName;
  if (input.description !== undefined) set.description = input.description || null;
  if (input.agentIds !== undefined) set.agentIds = [...new Set(input.agentIds.map((a) => a.toLowerCase()))];
  if (input.configParams) {
    set.configParams = { ...toParams(tool), ...stripUndefined(input.configParams) };
    checkWriteAccess(tool.baseToolCode as string, tool.status as ToolStatus, set.configParams as Params);
  }
  if ('displayName' in set || 'description' in set)
    set.searchText = searchText(
      (set.displayName ?? tool.displayName) as string,
      ('description' in set ? set.description : tool.description) as string | null,
    );
  return toDetail(await changeTool(t, tool, set, actor, 'update', { ...set, searchText: undefined }));
}

export async function putConfig(
  t: string,
  id: string,
  input: { displayName?: string; description?: string | null; schema?: Partial<Schema> },
  actor: Principal,
) {
  const tool = await getTool(t, id);
  editable(tool);
  const set: Record<string, unknown> = {};
  if (input.displayName !== undefined) set.displayName = input.displayName;
  if (input.description !== undefined) set.description = input.description || null;
  if (input.schema) {
    const s = stripUndefined(input.schema);
    set.schema = {
      ...toConfig(tool).schema,
      ...s,
      ...(s.databaseType === '' ? { databaseType: null } : {}),
      ...(s.schemaName === '' ? { schemaName: null } : {}),
    };
  }
  set.searchText = searchText(
    (set.displayName ?? tool.displayName) as string,
    ('description' in set ? set.description : tool.description) as string | null,
  );
  return toConfig(await changeTool(t, tool, set, actor, 'config', { ...set, searchText: undefined }));
}

export async function putParams(t: string, id: string, input: Partial<Params>, actor: Principal) {
  const tool = await getTool(t, id);
  editable(tool);
  const params = { ...toParams(tool), ...stripUndefined(input) };
  checkWriteAccess(tool.baseToolCode as string, tool.status as ToolStatus, params);
  return toParams(
    await changeTool(
      t,
      tool,
      { configParams: params },
      actor,
      'config-params',
      params as unknown as Record<string, unknown>,
    ),
  );
}

/** Soft delete: the tool leaves the list and every route; the record stays for the audit trail. */
export async function deleteTool(t: string, id: string, actor: Principal) {
  const tool = await getTool(t, id);
  const now = new Date().toISOString();
  await commitChange(
    [
      updateItem(
        tools.key(t, id),
        { deletedAt: now, gsi1pk: tools.deleted(t), updatedAt: now },
        { condition: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)' },
      ),
      bumpCounter(tools.collection(t), -1),
    ],
    { tenantId: t, actor, entityType: 'Tool', entityId: id, action: 'delete', changes: { status: tool.status } },
    now,
    'The tool was deleted meanwhile',
  );
}

/** SystemAdmin moves along the tool table; any other move is 409. */
export async function moveTool(t: string, id: string, action: ToolAction, actor: Principal) {
  const tool = await getTool(t, id);
  const to = nextToolStatus(tool.status as ToolStatus, action);
  if (!to) throw conflict(`A ${String(tool.status)} tool cannot be moved by ${action}`);
  const stamp = { approve: 'approvedAt', activate: 'activatedAt', reject: 'rejectedAt' }[action];
  return toDetail(
    await changeTool(t, tool, { status: to, [stamp]: new Date().toISOString() }, actor, action, {
      from: tool.status,
      to,
    }),
  );
}

export async function listTools(
  t: string,
  q: { page: number; pageSize: number; agentId?: string; search?: string; kbStatus?: '0' | '1' },
) {
  if (!q.agentId && q.kbStatus === undefined) {
    const { items, totalCount } = await listNewestFirst(tools.collection(t), {
      page: q.page,
      pageSize: q.pageSize,
      ...(q.search ? { search: q.search } : {}),
    });
    return toPage(items.map(toDetail), totalCount, q.page, q.pageSize);
  }
  // Filters beyond search read the tenant's tools through a filter expression (no Scan).
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': tools.collection(t) };
  if (q.agentId) {
    filters.push('contains(agentIds, :agent)');
    values[':agent'] = q.agentId.toLowerCase();
  }
  if (q.kbStatus !== undefined) {
    filters.push(q.kbStatus === '1' ? 'chunkCount > :zero' : 'chunkCount = :zero');
    values[':zero'] = 0;
  }
  if (q.search) {
    filters.push('contains(searchText, :search)');
    values[':search'] = q.search.toLowerCase();
  }
  const all = await queryItems({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  });
  const start = (q.page - 1) * q.pageSize;
  return toPage(all.slice(start, start + q.pageSize).map(toDetail), all.length, q.page, q.pageSize);
}

export { toDetail as toToolDetail };
