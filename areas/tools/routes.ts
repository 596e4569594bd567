import * as z from 'zod/mini';
import { MAX_VALUE_BYTES } from '#areas/vault/for-tools.ts';
import {
  MAX_AGENT_IDS,
  MAX_ALLOWED_HOSTS,
  MAX_ALLOWED_RECIPIENTS,
  MAX_TABLES,
  PARAM_LIMITS,
  TOOL_STATUSES,
} from '#areas/tools/lifecycle.ts';
import { defineRoutes, once, scope } from '#shared/routes/types.ts';
import {
  HOSTNAME_PATTERN,
  optionalText,
  pageOf,
  paging,
  RECIPIENT_PATTERN,
  CHANNEL_RECIPIENT_PATTERN,
  searchTerm,
  text,
  uuid,
} from '#shared/routes/schemas.ts';
import { secretOutsideNamespace } from '#areas/vault/for-tools.ts';
import { MCP_AUTH_METHODS } from '#areas/tools/records.ts';
import { MCP_LIMITS } from '#areas/tools/mcp/server-tools.ts';
import { mcpServerFailed } from '#areas/tools/errors.ts';
import { conflict } from '#shared/http/errors.ts';

/** AI tool registry: tenant tools configured from the built-in catalog, approved by a SystemAdmin. */
const read = { kind: 'bearer', permission: 'tools:read' } as const;
const write = { kind: 'bearer', permission: 'tools:write' } as const;
const adminOnly = { kind: 'bearer', roles: ['SystemAdmin'] } as const;
const tenantQuery = once(() => ({ tenantId: z.optional(uuid()) }));

const ofTenant = scope.tenant({ tenantFrom: 'query' });
const ofBody = scope.tenant({ tenantFrom: 'body' });
/** A SystemAdmin may name a tool by its id alone. */
const ofTool = scope.tenant({ tenantFrom: 'query', record: { param: 'toolId', collection: 'TOOL', label: 'Tool' } });

/**
 * Exact DNS names, and `localhost` for trying a tool against a server of the local run: the address
 * guard refuses it (loopback) unless that run's LOCAL_ALLOW_LOOPBACK_TARGETS switch is on.
 */
const ALLOWED_HOST = new RegExp(`^(?:localhost|${HOSTNAME_PATTERN.source.slice(1, -1)})$`, 'i');

/** Lowercased, so what is stored compares exactly with what the executor sees (repeats are dropped on write). */
const allowList = (pattern: RegExp, message: string, max: number, maxLength: number, example: string) =>
  z
    .array(
      z
        .string()
        .check(
          z.trim(),
          z.maxLength(maxLength),
          z.regex(pattern, message),
          z.toLowerCase(),
          z.meta({ examples: [example] }),
        ),
    )
    .check(z.maxLength(max));
/**
 * Step 2 parameters; absent fields keep their value (defaults 100 rows, 30 seconds, read-only, no
 * hosts, no recipients). An allow-list given replaces the stored one.
 */
const configParams = () =>
  z.object({
    allowedHosts: z.optional(
      allowList(
        ALLOWED_HOST,
        'A host name such as api.example.com, or localhost (no scheme, port or path)',
        MAX_ALLOWED_HOSTS,
        253,
        'api.example.com',
      ),
    ),
    allowedRecipients: z.optional(
      allowList(
        RECIPIENT_PATTERN,
        'An e-mail address or a domain such as example.com',
        MAX_ALLOWED_RECIPIENTS,
        254,
        'support@example.com',
      ),
    ),
    channelId: z.optional(z.nullable(uuid())),
    allowedChannelRecipients: z.optional(
      allowList(
        CHANNEL_RECIPIENT_PATTERN,
        'A chat, channel or user id, or a phone number (letters, digits and + _ . : @ -)',
        MAX_ALLOWED_RECIPIENTS,
        100,
        'c0123abc',
      ),
    ),
    calendarId: z.optional(z.nullable(uuid())),
    maxRows: z.optional(z.int().check(z.minimum(PARAM_LIMITS.maxRows.min), z.maximum(PARAM_LIMITS.maxRows.max))),
    readOnly: z.optional(z.boolean()),
    maxSteps: z.optional(z.int().check(z.minimum(PARAM_LIMITS.maxSteps.min), z.maximum(PARAM_LIMITS.maxSteps.max))),
    timeoutSeconds: z.optional(
      z.int().check(z.minimum(PARAM_LIMITS.timeoutSeconds.min), z.maximum(PARAM_LIMITS.timeoutSeconds.max)),
    ),
    requiresApproval: z.optional(z.boolean()),
    approvalTimeoutMinutes: z.optional(
      z
        .int()
        .check(z.minimum(PARAM_LIMITS.approvalTimeoutMinutes.min), z.maximum(PARAM_LIMITS.approvalTimeoutMinutes.max)),
    ),
    allowedTools: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(MCP_LIMITS.nameLength)))
        .check(
          z.maxLength(MCP_LIMITS.tools),
          z.meta({ description: "MCP Server: the server's tools the agent may call (names from the last refresh)" }),
        ),
    ),
    toolApproval: z.optional(
      z.record(z.string().check(z.maxLength(MCP_LIMITS.nameLength)), z.boolean()).check(
        z.refine((r) => Object.keys(r).length <= MCP_LIMITS.tools, `At most ${MCP_LIMITS.tools} entries`),
        z.meta({
          description:
            'MCP Server: per server tool, whether a person approves each call (absent: on unless the server marks it readOnlyHint)',
        }),
      ),
    ),
    maxResponseBytes: z.optional(
      z.int().check(z.minimum(PARAM_LIMITS.maxResponseBytes.min), z.maximum(PARAM_LIMITS.maxResponseBytes.max)),
    ),
    maxResultChars: z.optional(
      z.int().check(z.minimum(PARAM_LIMITS.maxResultChars.min), z.maximum(PARAM_LIMITS.maxResultChars.max)),
    ),
  });
/**
 * Write-only: the connection string's value (kept as a tenant secret; the tool keeps a reference),
 * a reference read back from the tool (`vault://tenants/{tenantId}/...`, the caller's own only), or
 * null to remove it.
 */
const connectionString = () =>
  z.string().check(
    z.minLength(1),
    z.refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_VALUE_BYTES, `At most ${MAX_VALUE_BYTES} bytes`),
  );
const schemaConfig = () =>
  z.object({
    databaseType: optionalText(50),
    schemaName: z.optional(
      z.nullable(
        z.string().check(
          z.trim(),
          z.maxLength(128),
          z.meta({
            description:
              "Db tools: the session's search_path, so unqualified names resolve in this schema. Not an access " +
              "boundary: a qualified name reaches any schema the connection's database role may read",
          }),
        ),
      ),
    ),
    tables: z.optional(
      z.array(text(128)).check(
        z.maxLength(MAX_TABLES),
        z.meta({
          description:
            'A note for the reviewer of the tables the tool is meant for. Not enforced: what the tool can read or ' +
            "write is what the connection's database role is granted; give it a role limited to these tables",
        }),
      ),
    ),
    connectionString: z.optional(z.nullable(connectionString())),
    serverUrl: z.optional(
      z.nullable(
        z
          .string()
          .check(
            z.trim(),
            z.maxLength(2048),
            z.meta({ description: "MCP Server: the server's Streamable HTTP endpoint, an https URL" }),
          ),
      ),
    ),
    authMethod: z.optional(
      z.enum(MCP_AUTH_METHODS).check(
        z.meta({
          description:
            'MCP Server: none, bearer (connectionString is the token), header (connectionString is the value of authHeaderName) or oauth (the client-credentials grant: oauthClientId and oauthIssuer, connectionString is the client secret)',
        }),
      ),
    ),
    authHeaderName: z.optional(
      z.nullable(z.string().check(z.regex(HEADER_NAME, 'An HTTP header name'), z.maxLength(100))),
    ),
    oauthClientId: z.optional(z.nullable(z.string().check(z.trim(), z.minLength(1), z.maxLength(200)))),
    oauthIssuer: z.optional(
      z.nullable(
        z.string().check(
          z.trim(),
          z.maxLength(2048),
          z.meta({
            description: 'MCP Server, oauth: the authorization server (its issuer URL) the client is registered with',
          }),
        ),
      ),
    ),
    oauthScope: z.optional(z.nullable(z.string().check(z.trim(), z.maxLength(500)))),
  });

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const toolParams = once(() =>
  z.object({
    maxRows: z.number(),
    readOnly: z.boolean(),
    timeoutSeconds: z.number(),
    maxSteps: z.number(),
    allowedHosts: z.array(z.string()),
    allowedRecipients: z.array(z.string()),
    channelId: z.nullable(z.string()),
    allowedChannelRecipients: z.array(z.string()),
    calendarId: z.nullable(z.string()),
    requiresApproval: z.boolean(),
    approvalTimeoutMinutes: z.number(),
    allowedTools: z.array(z.string()),
    toolApproval: z.record(z.string(), z.boolean()),
    maxResponseBytes: z.number(),
    maxResultChars: z.number(),
  }),
);
const toolConfig = once(() =>
  z.object({
    id: z.string(),
    displayName: z.string(),
    description: z.nullable(z.string()),
    baseToolId: z.string(),
    type: z.string(),
    status: z.enum(TOOL_STATUSES),
    schema: z.object({
      databaseType: z.nullable(z.string()),
      schemaName: z.nullable(z.string()),
      tables: z.array(z.string()),
      /** The tenant secret's reference (never the value); null when none is set. */
      connectionString: z.nullable(z.string()),
      connectionStringSet: z.boolean(),
      /** Where the connection leads (host:port/database, no credentials), for the reviewer; null when none is set. */
      connectionTarget: z.nullable(z.string()),
      serverUrl: z.nullable(z.string()),
      authMethod: z.enum(MCP_AUTH_METHODS),
      authHeaderName: z.nullable(z.string()),
      oauthClientId: z.nullable(z.string()),
      oauthIssuer: z.nullable(z.string()),
      oauthScope: z.nullable(z.string()),
    }),
    kbStatus: z.object({ hasChunks: z.boolean(), chunkCount: z.number() }),
  }),
);
const toolDetail = once(() =>
  z.extend(toolConfig(), {
    baseToolName: z.string(),
    agentIds: z.array(z.string()),
    configParams: toolParams(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
const builtInTool = once(() =>
  z.object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    description: z.string(),
    type: z.string(),
    isActive: z.boolean(),
  }),
);

const serverTools = once(() =>
  z.object({
    /** When the list was read; null before the first refresh. */
    refreshedAt: z.nullable(z.string()),
    tools: z.array(
      z.object({
        name: z.string(),
        description: z.nullable(z.string()),
        inputSchema: z.record(z.string(), z.unknown()),
        annotations: z.record(z.string(), z.unknown()),
        allowed: z.boolean(),
        requiresApproval: z.boolean(),
      }),
    ),
  }),
);

const toolIdParams = once(() => z.object({ toolId: uuid() }));
const T = '/api/tools';
const common = { group: 'tools' } as const;
const byId = once(() => ({ params: toolIdParams(), query: z.object(tenantQuery()) }));

const stateRoute = <A extends 'approve' | 'activate' | 'reject'>(action: A, summary: string) =>
  ({
    ...common,
    id: `tools.${action}` as `tools.${A}`,
    method: 'PUT',
    path: `${T}/{toolId}/${action}`,
    auth: adminOnly,
    scope: ofTool,
    summary,
    status: 200,
    schemas: () => ({ ...byId(), response: toolDetail() }),
  }) as const;

export const toolRoutes = defineRoutes([
  {
    ...common,
    id: 'tools.list',
    method: 'GET',
    path: T,
    auth: read,
    scope: ofTenant,
    summary:
      "List the tenant's tools, newest first; filter by agentId, search (name, description) or " +
      'kbStatus (0 without, 1 with chunks in the knowledge bases bound to its agents)',
    status: 200,
    schemas: () => ({
      query: z.object({
        ...tenantQuery(),
        ...paging(),
        agentId: z.optional(uuid()),
        search: searchTerm(),
        kbStatus: z.optional(z.enum(['0', '1'])),
      }),
      response: pageOf(toolDetail()),
    }),
  },
  {
    ...common,
    id: 'tools.create',
    method: 'POST',
    path: T,
    auth: write,
    scope: ofBody,
    summary: 'Create a tool from a built-in tool; it starts PENDING until a SystemAdmin approves it',
    status: 201,
    schemas: () => ({
      body: z.object({
        displayName: text(200),
        baseToolId: uuid(),
        description: optionalText(2000),
        configParams: z.optional(configParams()),
        tenantId: z.optional(uuid()),
      }),
      response: toolDetail(),
    }),
  },
  {
    ...common,
    id: 'tools.builtIn',
    method: 'GET',
    path: `${T}/built-in`,
    auth: read,
    scope: scope.platform,
    summary: 'List the built-in tools a tenant tool is made from',
    status: 200,
    schemas: () => ({ query: z.object(paging()), response: pageOf(builtInTool()) }),
  },
  {
    ...common,
    id: 'tools.builtIn.select',
    method: 'POST',
    path: `${T}/built-in/select`,
    auth: write,
    scope: ofBody,
    summary: "Create a PENDING tool from a built-in tool with the built-in tool's name and description",
    status: 201,
    schemas: () => ({
      body: z.object({ baseToolId: uuid(), tenantId: z.optional(uuid()) }),
      response: toolDetail(),
    }),
  },
  {
    ...common,
    id: 'tools.get',
    method: 'GET',
    path: `${T}/{toolId}`,
    auth: read,
    scope: ofTool,
    summary: 'A tool as the list shows it: step 1 (display and schema), step 2 parameters, agents and status',
    status: 200,
    schemas: () => ({ ...byId(), response: toolDetail() }),
  },
  {
    ...common,
    id: 'tools.update',
    method: 'PUT',
    path: `${T}/{toolId}`,
    auth: write,
    scope: ofTool,
    summary:
      "Update name, description, agents (the tenant's own agents only) and parameters (absent fields " +
      'stay); changing readOnly, switching requiresApproval off, or adding an allowed host or recipient to an APPROVED or ACTIVE tool ' +
      'sends it back to PENDING; a REJECTED tool is 409',
    status: 200,
    schemas: () => ({
      ...byId(),
      body: z.object({
        displayName: z.optional(text(200)),
        description: optionalText(2000),
        agentIds: z.optional(z.array(uuid()).check(z.maxLength(MAX_AGENT_IDS))),
        configParams: z.optional(configParams()),
      }),
      response: toolDetail(),
    }),
  },
  {
    ...common,
    id: 'tools.delete',
    method: 'DELETE',
    path: `${T}/{toolId}`,
    auth: write,
    scope: ofTool,
    summary: 'Delete a tool (soft delete: kept for the audit trail, gone from every route)',
    status: 204,
    errors: [secretOutsideNamespace],
    schemas: byId,
  },
  {
    ...common,
    id: 'tools.config.get',
    method: 'GET',
    path: `${T}/{toolId}/config`,
    auth: read,
    scope: ofTool,
    summary: 'Step 1 configuration: display and schema',
    status: 200,
    schemas: () => ({ ...byId(), response: toolConfig() }),
  },
  {
    ...common,
    id: 'tools.config.put',
    method: 'PUT',
    path: `${T}/{toolId}/config`,
    auth: write,
    scope: ofTool,
    summary:
      'Set step 1 configuration (absent fields stay). connectionString is write-only: its value is ' +
      'kept as a tenant secret and reads show only its reference (vault://tenants/{tenantId}/...) and ' +
      "connectionStringSet; a reference may name only a secret of the caller's own tenant (400 " +
      'otherwise); null removes it. A Db tool takes a postgres:// URL with one host name or IP address and no ' +
      'socket or file options (400 otherwise); reads show its target (host:port/database) as connectionTarget. ' +
      'A new connection, schemaName or tables sends an APPROVED or ACTIVE tool back to PENDING',
    status: 200,
    errors: [secretOutsideNamespace],
    schemas: () => ({
      ...byId(),
      body: z.object({
        displayName: z.optional(text(200)),
        description: optionalText(2000),
        schema: z.optional(schemaConfig()),
      }),
      response: toolConfig(),
    }),
  },
  {
    ...common,
    id: 'tools.params.get',
    method: 'GET',
    path: `${T}/{toolId}/config-params`,
    auth: read,
    scope: ofTool,
    summary: 'Step 2 parameters',
    status: 200,
    schemas: () => ({ ...byId(), response: toolParams() }),
  },
  {
    ...common,
    id: 'tools.params.put',
    method: 'PUT',
    path: `${T}/{toolId}/config-params`,
    auth: write,
    scope: ofTool,
    summary:
      `Set step 2 parameters: maxRows ${PARAM_LIMITS.maxRows.min}-${PARAM_LIMITS.maxRows.max}, ` +
      `timeoutSeconds ${PARAM_LIMITS.timeoutSeconds.min}-${PARAM_LIMITS.timeoutSeconds.max}, ` +
      `maxSteps ${PARAM_LIMITS.maxSteps.min}-${PARAM_LIMITS.maxSteps.max} (Browser Action: steps per call; it ` +
      'also honours at most 25 of the timeoutSeconds), ' +
      'readOnly (Db Execute may switch writes on only once approved), allowedHosts (HTTP Request and Browser Action: exact host ' +
      `names, at most ${MAX_ALLOWED_HOSTS}) and allowedRecipients (Send Email: addresses or domains, at most ` +
      `${MAX_ALLOWED_RECIPIENTS}), channelId and allowedChannelRecipients (the send-message tools: the ` +
      "tenant's connection of the tool's platform, and the chat ids or phone numbers it may write to), calendarId " +
      "(Manage Schedule: the tenant's calendar it books in), " +
      'requiresApproval (a person approves each side-effecting call from the inbox; on by default for Send Email, ' +
      'Db Execute, the send-message tools, Browser Action and Manage Schedule) and approvalTimeoutMinutes ' +
      `(${PARAM_LIMITS.approvalTimeoutMinutes.min}-${PARAM_LIMITS.approvalTimeoutMinutes.max}, default 60: a call ` +
      'left undecided that long is Expired, which counts as rejected); changing readOnly, the connection, switching ' +
      'requiresApproval off, or adding a host or recipient to an APPROVED or ACTIVE tool sends it back to PENDING',
    status: 200,
    schemas: () => ({
      ...byId(),
      body: configParams(),
      response: toolParams(),
    }),
  },
  {
    ...common,
    id: 'tools.mcp.tools',
    method: 'GET',
    path: `${T}/{toolId}/mcp/tools`,
    auth: read,
    scope: ofTool,
    summary:
      "An MCP Server tool: the server's tools as read at the last refresh (name, description, input schema, " +
      'annotations) with whether each is allowed and waits for approval; 409 for another kind of tool',
    status: 200,
    errors: [conflict],
    schemas: () => ({ ...byId(), response: serverTools() }),
  },
  {
    ...common,
    id: 'tools.mcp.refresh',
    method: 'POST',
    path: `${T}/{toolId}/mcp/refresh`,
    auth: write,
    scope: ofTool,
    summary:
      "An MCP Server tool: read the server's tools again (through the address guard, bounded in time and size) " +
      'and keep them; an allowed tool whose schema, description or annotations changed sends an APPROVED or ' +
      'ACTIVE tool back to PENDING. 502 MCP_SERVER_FAILED when the server cannot be read',
    status: 200,
    errors: [mcpServerFailed],
    schemas: () => ({
      ...byId(),
      response: z.extend(serverTools(), {
        status: z.enum(TOOL_STATUSES),
        /** Tools the server listed that were not kept (a bad name or schema, over the size or count bound). */
        skipped: z.array(z.string()),
      }),
    }),
  },
  stateRoute('approve', 'SystemAdmin: approve a PENDING tool (APPROVED); other states are 409'),
  stateRoute('activate', 'SystemAdmin: activate an APPROVED tool (ACTIVE); other states are 409'),
  stateRoute('reject', 'SystemAdmin: reject a PENDING or APPROVED tool (REJECTED, final); other states are 409'),
]);
