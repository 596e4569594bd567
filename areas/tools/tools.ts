import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { getOr404 } from '#shared/data/read.ts';
import { sameIds } from '#shared/data/same-ids.ts';
import { conflict, notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS, SEND_TOOL_CHANNELS } from '#areas/tools/built-in-tools.ts';
import { channelTypeOf } from '#areas/channels/for-tools.ts';
import { ask } from '#shared/data/queries.ts';
import { TENANT_AGENTS } from './queries.ts';
import { calendarExists } from '#areas/calendars/for-tools.ts';
import { logger } from '#shared/runtime/logger.ts';
import { refreshToolsKbStatusAfter } from './kb-status.ts';
import {
  deleteTenantSecret,
  ownReference,
  putTenantSecret,
  resolveTenantSecret,
  tenantSecretExists,
} from '#areas/vault/for-tools.ts';
import { ConnectionRefused, describeTarget, parseConnectionString } from './connection-target.ts';
import { outboundUrl, TargetRefused } from '#shared/http/pinned-request.ts';
import { approvalOf, isMcp, type ServerTool } from './mcp/server-tools.ts';
import { nextToolStatus, widensReach, writeAccessRefusal, type AdminToolAction } from './lifecycle.ts';
import {
  connectionSecretName,
  DEFAULT_PARAMS,
  EMPTY_SCHEMA,
  isToolConnection,
  searchText,
  storedSchema,
  toConfig,
  toDetail,
  toolItem,
  toParams,
  tools,
  type Params,
  type StoredSchema,
  type ToolItem,
} from './records.ts';

/** The built-in catalog is code (areas/tools/built-in-tools.ts): fixed ids, no table read. */
export function listBuiltIn(q: { page: number; pageSize: number }) {
  const start = (q.page - 1) * q.pageSize;
  const items = BUILT_IN_TOOLS.slice(start, start + q.pageSize).map(
    ({ id, code, name, description, type, isActive }) => ({ id, code, name, description, type, isActive }),
  );
  return toPage(items, BUILT_IN_TOOLS.length, q.page, q.pageSize);
}

function builtIn(baseToolId: string) {
  const base = BUILT_IN_TOOLS.find((b) => b.id === baseToolId);
  if (!base) throw validationError([{ path: 'body.baseToolId', message: 'No such built-in tool' }]);
  return base;
}

/** An MCP tool reaching further: a server tool newly allowed, or one whose calls stop waiting for a person. */
function mcpReachWidened(before: Params, after: Params, tool: Pick<ToolItem, 'serverTools'>) {
  if (after.allowedTools.some((t) => !before.allowedTools.includes(t))) return true;
  const listed = new Map<string, Pick<ServerTool, 'name' | 'annotations'>>(
    (tool.serverTools?.tools ?? []).map((t) => [t.name, t]),
  );
  return after.allowedTools.some((name) => {
    const t = listed.get(name) ?? { name, annotations: null };
    return approvalOf(before.toolApproval, t) && !approvalOf(after.toolApproval, t);
  });
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

const stripUndefined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The given parameters over the current ones; allow-lists without repeats. */
function mergeParams(before: Params, given: Partial<Params>): Params {
  const p = { ...before, ...stripUndefined(given) };
  return {
    ...p,
    allowedHosts: [...new Set(p.allowedHosts)],
    allowedRecipients: [...new Set(p.allowedRecipients)],
    allowedChannelRecipients: [...new Set(p.allowedChannelRecipients)],
    allowedTools: [...new Set(p.allowedTools)],
  };
}

/**
 * A send-message tool's connection, when it changes: the tenant's own, of the tool's platform. Other
 * tools take none.
 */
async function checkChannel(tenantId: string, code: string, params: Params, before: Params, path: string) {
  if (!params.channelId || params.channelId === before.channelId) return;
  const type = SEND_TOOL_CHANNELS[code as keyof typeof SEND_TOOL_CHANNELS];
  if (!type) throw validationError([{ path, message: 'Only the send-message tools take a channel connection' }]);
  if ((await channelTypeOf(tenantId, params.channelId)) !== type)
    throw validationError([{ path, message: `No ${type} channel connection with this id` }]);
}

/** A Manage Schedule tool's calendar, when it changes: the tenant's own. Other tools take none. */
async function checkCalendar(tenantId: string, code: string, params: Params, before: Params, path: string) {
  if (!params.calendarId || params.calendarId === before.calendarId) return;
  if (code !== 'manage_schedule') throw validationError([{ path, message: 'Only Manage Schedule takes a calendar' }]);
  if (!(await calendarExists(tenantId, params.calendarId)))
    throw validationError([{ path, message: 'No calendar with this id' }]);
}

/** What a SystemAdmin approved changed: the read-only flag, or an allow-list reaching further. */
const needsReview = (before: Params, after: Params, tool: Pick<ToolItem, 'serverTools'>) =>
  after.readOnly !== before.readOnly ||
  widensReach(before, after) ||
  // Letting calls run unattended reaches further than what was approved, like a new host does.
  (before.requiresApproval !== false && after.requiresApproval === false) ||
  mcpReachWidened(before, after, tool);

/**
 * Only an MCP tool takes server tools, and only those its last refresh listed: a tenant picks from
 * what the server offers (a name it never offered would be a function the model is shown blind).
 */
function checkServerTools(tool: Pick<ToolItem, 'baseToolCode' | 'serverTools'>, params: Params, path: string) {
  if (!isMcp(tool)) {
    if (params.allowedTools.length || Object.keys(params.toolApproval ?? {}).length)
      throw validationError([{ path: `${path}.allowedTools`, message: 'Only an MCP Server tool takes server tools' }]);
    return;
  }
  const listed = new Set((tool.serverTools?.tools ?? []).map((t) => t.name));
  const unknown = params.allowedTools.findIndex((n) => !listed.has(n));
  if (unknown >= 0)
    throw validationError([
      {
        path: `${path}.allowedTools.${unknown}`,
        message: 'The server listed no such tool at the last refresh (POST .../mcp/refresh first)',
      },
    ]);
}

function checkWriteAccess(tool: Pick<ToolItem, 'baseToolCode' | 'status'>, params: Params, before: Params) {
  const refusal = writeAccessRefusal(tool.baseToolCode, tool.status, params.readOnly, before.readOnly);
  if (refusal) throw validationError([{ path: 'body.configParams.readOnly', message: refusal }]);
}

const audit = (
  tenantId: string,
  actor: Principal,
  toolId: string,
  action: string,
  changes: Change['changes'],
): Change => ({
  tenantId,
  actor,
  entityType: 'Tool',
  entityId: toolId,
  action,
  changes,
});

export async function createTool(
  tenantId: string,
  input: { displayName?: string; baseToolId: string; description?: string | null; configParams?: Partial<Params> },
  actor: Principal,
) {
  const base = builtIn(input.baseToolId);
  const params = mergeParams(DEFAULT_PARAMS, input.configParams ?? {});
  checkWriteAccess({ baseToolCode: base.code, status: 'PENDING' }, params, DEFAULT_PARAMS);
  checkServerTools({ baseToolCode: base.code, serverTools: null }, params, 'body.configParams');
  await checkChannel(tenantId, base.code, params, DEFAULT_PARAMS, 'body.configParams.channelId');
  await checkCalendar(tenantId, base.code, params, DEFAULT_PARAMS, 'body.configParams.calendarId');
  const now = new Date().toISOString();
  const item = toolItem(tenantId, {
    id: crypto.randomUUID(),
    displayName: input.displayName ?? base.name,
    description: input.description === undefined ? base.description : input.description || null,
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
  });
  await commitChange(
    [putNew(item), bumpCounter(tools.collection(tenantId), 1)],
    audit(tenantId, actor, item.id, 'create', {
      displayName: item.displayName,
      baseToolId: base.id,
      status: 'PENDING',
    }),
    { now },
  );
  return toDetail(item);
}

/** A tool that is not deleted, read consistently, or 404. */
export async function getTool(tenantId: string, id: string) {
  const item = await getOr404<ToolItem>(tools.key(tenantId, id), 'Tool', { consistent: true });
  if (item.deletedAt) throw notFound('Tool');
  return item;
}

/**
 * A change to a tool's fields, conditional on the tool being unchanged in status and not deleted.
 * A change to what a SystemAdmin approved (`reviewed`: the connection or the read-only flag)
 * sends an APPROVED or ACTIVE tool back to PENDING in the same write.
 */
export async function changeTool(
  tenantId: string,
  tool: ToolItem,
  given: Record<string, unknown>,
  actor: Principal,
  action: string,
  changes: Record<string, unknown>,
  reviewed = false,
) {
  const now = new Date().toISOString();
  const resubmitted = reviewed ? nextToolStatus(tool.status, 'resubmit') : null;
  const set = { ...given, ...(resubmitted ? { status: resubmitted, resubmittedAt: now } : {}), updatedAt: now };
  await commitChange(
    [
      orConflict(
        updateItem(tools.key(tenantId, tool.id), set, {
          condition: 'attribute_exists(pk) AND attribute_not_exists(deletedAt) AND #status = :status',
          names: { '#status': 'status' },
          values: { ':status': tool.status },
        }),
        'The tool changed meanwhile; try again',
      ),
    ],
    audit(tenantId, actor, tool.id, action, {
      ...changes,
      ...(resubmitted ? { status: { from: tool.status, to: resubmitted } } : {}),
    }),
    { now },
  );
  return { ...tool, ...set } as ToolItem;
}

export function editable(tool: ToolItem) {
  if (tool.status === 'REJECTED') throw conflict('A REJECTED tool cannot be changed');
}

/** Every agent a tool names must be an agent of the tenant (400 naming the first unknown one). */
async function checkAgents(tenantId: string, agentIds: string[]) {
  const live = new Set((await ask(TENANT_AGENTS, tenantId)).map((a) => a.id));
  const unknown = agentIds.findIndex((id) => !live.has(id));
  if (unknown >= 0)
    throw validationError([{ path: `body.agentIds.${unknown}`, message: 'No such agent in this tenant' }]);
}

export async function updateTool(
  tenantId: string,
  id: string,
  input: { displayName?: string; description?: string | null; agentIds?: string[]; configParams?: Partial<Params> },
  actor: Principal,
) {
  const tool = await getTool(tenantId, id);
  editable(tool);
  const set: Record<string, unknown> = {};
  if (input.displayName !== undefined) set.displayName = input.displayName;
  if (input.description !== undefined) set.description = input.description || null;
  if (input.agentIds !== undefined) {
    const agentIds = [...new Set(input.agentIds)];
    await checkAgents(tenantId, agentIds);
    set.agentIds = agentIds;
  }
  let reviewed = false;
  if (input.configParams) {
    const before = toParams(tool);
    const params = mergeParams(before, input.configParams);
    checkWriteAccess(tool, params, before);
    checkServerTools(tool, params, 'body.configParams');
    await checkChannel(tenantId, tool.baseToolCode, params, before, 'body.configParams.channelId');
    await checkCalendar(tenantId, tool.baseToolCode, params, before, 'body.configParams.calendarId');
    set.configParams = params;
    reviewed = needsReview(before, params, tool);
  }
  if ('displayName' in set || 'description' in set)
    set.searchText = searchText(
      (set.displayName ?? tool.displayName) as string,
      ('description' in set ? set.description : tool.description) as string | null,
    );
  const { searchText: _, ...changes } = set;
  const changed = await changeTool(tenantId, tool, set, actor, 'update', changes, reviewed);
  if (!sameIds(tool.agentIds, changed.agentIds)) {
    // Its agents' bases are what its kbStatus shows: read the count the refresh wrote.
    await refreshToolsKbStatusAfter(tenantId, 'tool agents changed');
    return toDetail({ ...changed, chunkCount: (await getTool(tenantId, id)).chunkCount });
  }
  return toDetail(changed);
}

/** The Db tools connect to the connection string's host: it must be one a network guard can check. */
const DB_TOOLS = new Set(['db_query', 'db_execute']);

/** Where a Db tool's connection leads, for the reviewer; 400 on a string the executor would refuse. */
function targetOf(tool: ToolItem, value: string | null, path: string): string | null {
  if (value === null || !DB_TOOLS.has(tool.baseToolCode)) return null;
  try {
    return describeTarget(parseConnectionString(value));
  } catch (err) {
    if (err instanceof ConnectionRefused) throw validationError([{ path, message: err.message }]);
    throw err;
  }
}

/**
 * The connection a config write asks for: unchanged (absent), cleared (null), a reference the
 * client read back (it must name a secret of the caller's own namespace), or a value, which
 * becomes a new tenant secret of the tool. Answers the reference to store, the secret written, and
 * the target the reviewer is shown.
 */
async function connectionOf(
  tenantId: string,
  tool: ToolItem,
  given: string | null | undefined,
): Promise<{ reference: string | null; written: string | null; target: string | null }> {
  const current = storedSchema(tool);
  if (given === undefined)
    return { reference: current.connectionString, written: null, target: current.connectionTarget ?? null };
  if (given === null) return { reference: null, written: null, target: null };
  const path = 'body.schema.connectionString';
  if (given.startsWith('vault://')) {
    if (!ownReference(tenantId, given))
      throw validationError([
        { path, message: "A secret reference must name a secret of this tenant's own namespace" },
      ]);
    if (given === current.connectionString)
      return { reference: given, written: null, target: current.connectionTarget ?? null };
    if (!(await tenantSecretExists(tenantId, given))) throw validationError([{ path, message: 'No such secret' }]);
    const target = targetOf(
      tool,
      DB_TOOLS.has(tool.baseToolCode) ? await resolveTenantSecret(tenantId, given) : null,
      path,
    );
    return { reference: given, written: null, target };
  }
  const target = targetOf(tool, given, path);
  const { reference } = await putTenantSecret(tenantId, connectionSecretName(tool.id), given, path);
  return { reference, written: reference, target };
}

/** Removes a tool's own connection secret that no record references any more; a failure is only logged. */
async function dropConnection(tenantId: string, toolId: string, reference: string | null) {
  if (!reference || !isToolConnection(tenantId, toolId, reference)) return;
  try {
    await deleteTenantSecret(tenantId, reference);
  } catch (err) {
    logger.warn('tool connection secret not deleted', { toolId, errorName: (err as Error).name });
  }
}

export async function putConfig(
  tenantId: string,
  id: string,
  input: {
    displayName?: string;
    description?: string | null;
    schema?: Partial<Omit<StoredSchema, 'connectionString'>> & { connectionString?: string | null };
  },
  actor: Principal,
) {
  const tool = await getTool(tenantId, id);
  editable(tool);
  if (input.schema) checkServerConfig(tool, input.schema);
  const set: Record<string, unknown> = {};
  if (input.displayName !== undefined) set.displayName = input.displayName;
  if (input.description !== undefined) set.description = input.description || null;
  const before = storedSchema(tool);
  let connection = {
    reference: before.connectionString,
    written: null as string | null,
    target: before.connectionTarget ?? null,
  };
  if (input.schema) {
    const { connectionString, ...fields } = stripUndefined(input.schema);
    connection = await connectionOf(tenantId, tool, input.schema.connectionString);
    set.schema = {
      ...before,
      ...fields,
      ...(fields.databaseType === '' ? { databaseType: null } : {}),
      ...(fields.schemaName === '' ? { schemaName: null } : {}),
      connectionString: connection.reference,
      connectionTarget: connection.target,
    };
  }
  set.searchText = searchText(
    (set.displayName ?? tool.displayName) as string,
    ('description' in set ? set.description : tool.description) as string | null,
  );
  const connectionChanged = connection.reference !== before.connectionString;
  const after = (set.schema ?? before) as StoredSchema;
  if (isMcp(tool) && set.schema) {
    after.connectionTarget = after.serverUrl ?? null;
    // Another server's tools are not this one's: the list is read again from the new server.
    if ((after.serverUrl ?? null) !== (before.serverUrl ?? null)) set.serverTools = null;
  }
  // The reviewer approved a connection into a schema and a list of tables (an MCP tool: a server and
  // how it is reached): changing either is a new review.
  const reachChanged =
    connectionChanged ||
    after.schemaName !== before.schemaName ||
    !sameList(after.tables, before.tables) ||
    (after.serverUrl ?? null) !== (before.serverUrl ?? null) ||
    (after.authMethod ?? 'none') !== (before.authMethod ?? 'none') ||
    OAUTH_FIELDS.some((f) => (after[f] ?? null) !== (before[f] ?? null)) ||
    (after.authHeaderName ?? null) !== (before.authHeaderName ?? null);
  const { searchText: _, schema, serverTools: _tools, ...changes } = set;
  const audited = {
    ...changes,
    ...(schema ? { schema: { ...(schema as StoredSchema), connectionString: undefined } } : {}),
    ...(connectionChanged ? { connection: connection.reference ? 'replaced' : 'removed' } : {}),
  };
  let changed: ToolItem;
  try {
    changed = await changeTool(tenantId, tool, set, actor, 'config', audited, reachChanged);
  } catch (err) {
    // The record still names the old secret: the one just written is nobody's.
    await dropConnection(tenantId, tool.id, connection.written);
    throw err;
  }
  if (connectionChanged) await dropConnection(tenantId, tool.id, before.connectionString);
  return toConfig(changed);
}

export async function putParams(tenantId: string, id: string, input: Partial<Params>, actor: Principal) {
  const tool = await getTool(tenantId, id);
  editable(tool);
  const before = toParams(tool);
  const params = mergeParams(before, input);
  checkWriteAccess(tool, params, before);
  checkServerTools(tool, params, 'body');
  await checkChannel(tenantId, tool.baseToolCode, params, before, 'body.channelId');
  await checkCalendar(tenantId, tool.baseToolCode, params, before, 'body.calendarId');
  const changed = await changeTool(
    tenantId,
    tool,
    { configParams: params },
    actor,
    'config-params',
    { ...params },
    needsReview(before, params, tool),
  );
  return toParams(changed);
}

/** The server an MCP tool reaches, when step 1 names one: an https URL the guard can check, and a header that is free. */
function checkServerConfig(tool: ToolItem, schema: Partial<StoredSchema>) {
  const given =
    schema.serverUrl !== undefined ||
    schema.authMethod !== undefined ||
    schema.authHeaderName !== undefined ||
    OAUTH_FIELDS.some((f) => schema[f] !== undefined);
  if (!isMcp(tool)) {
    if (
      given &&
      (schema.serverUrl ||
        (schema.authMethod ?? 'none') !== 'none' ||
        schema.authHeaderName ||
        OAUTH_FIELDS.some((f) => schema[f]))
    )
      throw validationError([{ path: 'body.schema.serverUrl', message: 'Only an MCP Server tool takes a server' }]);
    return;
  }
  for (const field of ['serverUrl', 'oauthIssuer'] as const) {
    const given = schema[field];
    if (!given) continue;
    try {
      const url = outboundUrl(given);
      if (url.hash) throw new TargetRefused('The url has a fragment');
    } catch (err) {
      if (err instanceof TargetRefused) throw validationError([{ path: `body.schema.${field}`, message: err.message }]);
      throw err;
    }
  }
  const method = schema.authMethod ?? storedSchema(tool).authMethod ?? 'none';
  if (method === 'oauth')
    for (const field of ['oauthClientId', 'oauthIssuer'] as const) {
      const value = schema[field] !== undefined ? schema[field] : storedSchema(tool)[field];
      if (!value) throw validationError([{ path: `body.schema.${field}`, message: 'The oauth auth method needs it' }]);
    }
  const header = schema.authHeaderName !== undefined ? schema.authHeaderName : storedSchema(tool).authHeaderName;
  if (method === 'header' && !header)
    throw validationError([{ path: 'body.schema.authHeaderName', message: 'The header auth method names its header' }]);
  if (header && RESERVED_HEADERS.has(header.toLowerCase()))
    throw validationError([{ path: 'body.schema.authHeaderName', message: 'This header is set by the platform' }]);
}
/** Step 1's OAuth settings of an MCP tool: changing any is a new review, as a new server is. */
const OAUTH_FIELDS = ['oauthClientId', 'oauthIssuer', 'oauthScope'] as const;

/** Headers the transport or HTTP itself sets: a secret in one would be lost or break the exchange. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Soft delete: the tool leaves the list and every route; the record stays for the audit trail, its secret goes. */
export async function deleteTool(tenantId: string, id: string, actor: Principal) {
  const tool = await getTool(tenantId, id);
  const now = new Date().toISOString();
  await commitChange(
    [
      orConflict(
        updateItem(
          tools.key(tenantId, id),
          { deletedAt: now, ...tools.deletedIndex(tenantId), updatedAt: now },
          { condition: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)' },
        ),
        'The tool was deleted meanwhile',
      ),
      bumpCounter(tools.collection(tenantId), -1),
    ],
    audit(tenantId, actor, id, 'delete', { status: tool.status }),
    { now },
  );
  await dropConnection(tenantId, id, storedSchema(tool).connectionString);
}

/** SystemAdmin moves along the tool table; any other move is 409. */
export async function moveTool(tenantId: string, id: string, action: AdminToolAction, actor: Principal) {
  const tool = await getTool(tenantId, id);
  const to = nextToolStatus(tool.status, action);
  if (!to) throw conflict(`A ${tool.status} tool cannot be moved by ${action}`);
  const stamp = { approve: 'approvedAt', activate: 'activatedAt', reject: 'rejectedAt' }[action];
  return toDetail(
    await changeTool(tenantId, tool, { status: to, [stamp]: new Date().toISOString() }, actor, action, {
      from: tool.status,
      to,
    }),
  );
}

export async function listTools(
  tenantId: string,
  q: { page: number; pageSize: number; agentId?: string; search?: string; kbStatus?: '0' | '1' },
) {
  if (!q.agentId && q.kbStatus === undefined) {
    const { items, totalCount } = await listNewestFirst<ToolItem>(tools.collection(tenantId), {
      page: q.page,
      pageSize: q.pageSize,
      ...(q.search ? { search: q.search } : {}),
    });
    return toPage(items.map(toDetail), totalCount, q.page, q.pageSize);
  }
  // Filters beyond search read the tenant's tools through a filter expression (no Scan).
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': tools.collection(tenantId) };
  if (q.agentId) {
    filters.push('contains(agentIds, :agent)');
    values[':agent'] = q.agentId;
  }
  if (q.kbStatus !== undefined) {
    filters.push(q.kbStatus === '1' ? 'chunkCount > :zero' : 'chunkCount = :zero');
    values[':zero'] = 0;
  }
  if (q.search) {
    filters.push('contains(searchText, :search)');
    values[':search'] = q.search.toLowerCase();
  }
  const all = await queryItems<ToolItem>({
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
