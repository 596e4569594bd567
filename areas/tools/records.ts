import { keys } from '#shared/data/keys.ts';
import { describeTenantSecret, ownReference } from '#areas/vault/for-tools.ts';
import { approvalByDefault } from './built-in-tools.ts';
import type { ToolStatus } from './lifecycle.ts';
import type { ServerToolList } from './mcp/server-tools.ts';

/**
 * The tools area's records: a tenant tool is a tenant item (`{t}#TOOL`); a deleted tool leaves
 * the list for an archive partition and stays for the audit trail. Its connection string is a
 * tenant secret (areas/vault/tenant-secrets.ts): the item keeps only the reference.
 */
export const tools = {
  key: (tenantId: string, id: string) => keys.tenantItem(tenantId, 'TOOL', id),
  collection: (tenantId: string) => keys.tenantCollection(tenantId, 'TOOL'),
  /** Deleted tools leave the list for this gsi1 partition (kept for the audit trail). */
  deleted: (tenantId: string) => keys.archived(keys.tenantCollection(tenantId, 'TOOL')),
  /** The list index attributes of a deleted tool. */
  deletedIndex: (tenantId: string) => ({ gsi1pk: tools.deleted(tenantId) }),
};

/** Each write of a connection value gets a secret of its own, so an approved tool keeps the value approved. */
export const connectionSecretName = (toolId: string) => `tools/${toolId}/connection-${crypto.randomUUID().slice(0, 8)}`;
/** Whether a reference names one of this tool's own connection secrets (deleted with it, or when replaced). */
export const isToolConnection = (tenantId: string, toolId: string, reference: string | null) =>
  !!ownReference(tenantId, reference)?.name.startsWith(`tools/${toolId}/connection-`);

export interface Params {
  maxRows: number;
  readOnly: boolean;
  timeoutSeconds: number;
  /** Browser Action: the steps one call may take (the time is `timeoutSeconds`). */
  maxSteps: number;
  /** HTTP Request: the exact host names it may reach (none: it reaches nothing). */
  allowedHosts: string[];
  /** Send Email: the addresses and domains it may write to (none: it sends nothing). */
  allowedRecipients: string[];
  /** Send-message tools: the tenant's channel connection they send through (none: they send nothing). */
  channelId: string | null;
  /** Send-message tools: the chat, channel or user ids and phone numbers they may write to. */
  allowedChannelRecipients: string[];
  /** Manage Schedule: the tenant's calendar it books in (none: it books nothing). */
  calendarId: string | null;
  /** A person approves each side-effecting call before it runs (default by the tool's type: approval.ts). */
  requiresApproval?: boolean;
  /** How long a call waits for that person before it counts as rejected. */
  approvalTimeoutMinutes: number;
  /** MCP: the server's tools the agent may call, by name (none: it calls nothing). */
  allowedTools: string[];
  /** MCP: per server tool, whether a person approves each call (absent: on unless the server says readOnlyHint). */
  toolApproval: Record<string, boolean>;
  /** MCP: the most an answer of the server may weigh; a larger one fails the call. */
  maxResponseBytes: number;
  /** MCP: the most of a result the model reads. */
  maxResultChars: number;
}
export const DEFAULT_PARAMS: Params = {
  maxRows: 100,
  readOnly: true,
  timeoutSeconds: 30,
  maxSteps: 10,
  allowedHosts: [],
  allowedRecipients: [],
  channelId: null,
  allowedChannelRecipients: [],
  calendarId: null,
  approvalTimeoutMinutes: 60,
  allowedTools: [],
  toolApproval: {},
  maxResponseBytes: 256 * 1024,
  maxResultChars: 4000,
};

/** Step 1 schema as stored: `connectionString` is a tenant secret reference, never a value. */
export interface StoredSchema {
  databaseType: string | null;
  schemaName: string | null;
  tables: string[];
  connectionString: string | null;
  /** A Db tool's connection as the reviewer sees it (host:port/database); absent on tools stored before. */
  connectionTarget?: string | null;
  /** MCP: the server's Streamable HTTP endpoint (https). */
  serverUrl?: string | null;
  /** MCP: how the platform authenticates; the token or header value is the `connectionString` secret. */
  authMethod?: McpAuthMethod;
  /** MCP: the header the secret travels in when `authMethod` is `header`. */
  authHeaderName?: string | null;
  /** MCP, `authMethod` `oauth`: the client id; the client secret is the `connectionString` secret. */
  oauthClientId?: string | null;
  /** MCP, `oauth`: the authorization server the credentials belong to (its issuer): sent nowhere else. */
  oauthIssuer?: string | null;
  oauthScope?: string | null;
}
export const MCP_AUTH_METHODS = ['none', 'bearer', 'header', 'oauth'] as const;
export type McpAuthMethod = (typeof MCP_AUTH_METHODS)[number];
export const EMPTY_SCHEMA: StoredSchema = {
  databaseType: null,
  schemaName: null,
  tables: [],
  connectionString: null,
  connectionTarget: null,
  serverUrl: null,
  authMethod: 'none',
  authHeaderName: null,
  oauthClientId: null,
  oauthIssuer: null,
  oauthScope: null,
};

export type ToolItem = {
  pk: string;
  sk: string;
  id: string;
  tenantId: string;
  displayName: string;
  description: string | null;
  searchText: string;
  baseToolId: string;
  baseToolCode: string;
  baseToolName: string;
  type: string;
  status: ToolStatus;
  agentIds: string[];
  schema: StoredSchema;
  chunkCount: number;
  configParams: Params;
  /** MCP: the server's tools as read at the last refresh (areas/tools/mcp/server-tools.ts). */
  serverTools?: ServerToolList | null;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
};

export const searchText = (displayName: string, description: string | null) =>
  `${displayName} ${description ?? ''}`.toLowerCase();

export const toolItem = (tenantId: string, r: Omit<ToolItem, 'pk' | 'sk' | 'tenantId' | 'searchText'>) => ({
  ...tools.key(tenantId, r.id),
  ...keys.newestFirst(tools.collection(tenantId), r.createdAt, r.id),
  ...r,
  searchText: searchText(r.displayName, r.description),
  tenantId,
});

export const storedSchema = (i: Pick<ToolItem, 'schema'>): StoredSchema => ({ ...EMPTY_SCHEMA, ...i.schema });

/** The schema as reads show it: the reference when the tool's own tenant holds the secret, and whether one is set. */
function toSchema(i: Pick<ToolItem, 'schema' | 'tenantId'>) {
  const s = storedSchema(i);
  const { set } = describeTenantSecret(i.tenantId, s.connectionString);
  return {
    databaseType: s.databaseType,
    schemaName: s.schemaName,
    tables: s.tables,
    connectionString: set ? s.connectionString : null,
    connectionStringSet: set,
    connectionTarget: set ? (s.connectionTarget ?? null) : null,
    serverUrl: s.serverUrl ?? null,
    authMethod: s.authMethod ?? 'none',
    authHeaderName: s.authHeaderName ?? null,
    oauthClientId: s.oauthClientId ?? null,
    oauthIssuer: s.oauthIssuer ?? null,
    oauthScope: s.oauthScope ?? null,
  };
}

export const toParams = (
  i: Pick<ToolItem, 'configParams' | 'baseToolCode'>,
): Params & { requiresApproval: boolean } => {
  const p = { ...DEFAULT_PARAMS, ...i.configParams };
  return { ...p, requiresApproval: p.requiresApproval ?? approvalByDefault(i.baseToolCode) };
};

export const toConfig = (i: ToolItem) => ({
  id: i.id,
  displayName: i.displayName,
  description: i.description ?? null,
  baseToolId: i.baseToolId,
  type: i.type,
  status: i.status,
  schema: toSchema(i),
  kbStatus: { hasChunks: Number(i.chunkCount ?? 0) > 0, chunkCount: Number(i.chunkCount ?? 0) },
});

export const toDetail = (i: ToolItem) => ({
  ...toConfig(i),
  baseToolName: i.baseToolName,
  agentIds: i.agentIds ?? [],
  configParams: toParams(i),
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});
