import { defineError } from '#shared/http/errors.ts';

/** The tools area's own error: a tenant's MCP server could not be read (the guard, the network or the server refused). */
export const mcpServerFailed = defineError(
  502,
  'MCP_SERVER_FAILED',
  (detail: string) => `The MCP server could not be read: ${detail}`,
  { example: ['The host resolves to a private address'] },
);
