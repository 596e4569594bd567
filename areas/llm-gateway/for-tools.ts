/** What the tools area uses of the gateway: its JSON Schema checks (an MCP server's tool arguments). */
export { compileSchema, firstIssue } from './schema-check.ts';
