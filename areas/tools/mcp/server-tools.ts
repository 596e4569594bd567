import { createHash } from 'node:crypto';
import type { ToolItem } from '#areas/tools/records.ts';

/**
 * An MCP server's tools as a tool keeps them (read at the last refresh): what the model is shown of
 * each (name, description, input schema) and the annotations that set its approval default. Stored
 * on the tool item, so the list is bounded well under DynamoDB's 400 KB item.
 */
export interface ServerTool {
  name: string;
  description: string | null;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string } | null;
  /** What a reviewer approved of the tool: its schema, description and annotations, hashed. */
  fingerprint: string;
}
export interface ServerToolList {
  tools: ServerTool[];
  refreshedAt: string;
}

export const MCP_LIMITS = {
  tools: 100,
  nameLength: 128,
  descriptionLength: 2000,
  schemaBytes: 16 * 1024,
  listBytes: 200 * 1024,
} as const;

/** The function names an LLM provider takes: letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

const fingerprintOf = (t: Omit<ServerTool, 'fingerprint'>) =>
  createHash('sha256')
    .update(JSON.stringify(canonical({ d: t.description, s: t.inputSchema, a: t.annotations })))
    .digest('base64url')
    .slice(0, 22);

/**
 * The server's list as it is kept: each tool's name checked, its description and schema bounded, at
 * most `MCP_LIMITS.tools` of them. What does not fit is left out and named in `skipped`, so a
 * server cannot make a tool item too large to store or a model's context too large to send.
 */
export function keepServerTools(listed: readonly unknown[]): { tools: ServerTool[]; skipped: string[] } {
  const tools: ServerTool[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  for (const raw of listed) {
    const t = raw as { name?: unknown; description?: unknown; inputSchema?: unknown; annotations?: unknown };
    const name = typeof t.name === 'string' ? t.name : '';
    const schema =
      t.inputSchema && typeof t.inputSchema === 'object' && !Array.isArray(t.inputSchema)
        ? (t.inputSchema as Record<string, unknown>)
        : null;
    const a = (t.annotations && typeof t.annotations === 'object' ? t.annotations : null) as Record<
      string,
      unknown
    > | null;
    const annotations = a
      ? {
          ...(typeof a.readOnlyHint === 'boolean' ? { readOnlyHint: a.readOnlyHint } : {}),
          ...(typeof a.destructiveHint === 'boolean' ? { destructiveHint: a.destructiveHint } : {}),
          ...(typeof a.title === 'string' ? { title: a.title.slice(0, 200) } : {}),
        }
      : null;
    const kept = {
      name,
      description: typeof t.description === 'string' ? t.description.slice(0, MCP_LIMITS.descriptionLength) : null,
      inputSchema: schema ?? {},
      annotations,
    };
    const size = Buffer.byteLength(JSON.stringify(kept), 'utf8');
    if (
      !NAME.test(name) ||
      !schema ||
      schema.type !== 'object' ||
      size > MCP_LIMITS.schemaBytes ||
      bytes + size > MCP_LIMITS.listBytes ||
      tools.length >= MCP_LIMITS.tools ||
      tools.some((x) => x.name === name)
    ) {
      skipped.push(name.slice(0, MCP_LIMITS.nameLength) || '(unnamed)');
      continue;
    }
    bytes += size;
    tools.push({ ...kept, fingerprint: fingerprintOf(kept) });
  }
  return { tools, skipped };
}

/**
 * Whether a refresh changed what was approved: an allowed tool whose schema, description or
 * annotations differ from the kept ones (a removed tool narrows, a new one is not allowed yet).
 */
export function approvedToolsChanged(before: readonly ServerTool[], after: readonly ServerTool[], allowed: string[]) {
  const was = new Map(before.map((t) => [t.name, t.fingerprint]));
  return after.some((t) => allowed.includes(t.name) && was.has(t.name) && was.get(t.name) !== t.fingerprint);
}

/** A person approves each call unless the tenant said otherwise, or the server marks the tool read-only. */
export const approvalOf = (
  toolApproval: Record<string, boolean> | undefined,
  t: Pick<ServerTool, 'name' | 'annotations'>,
) => toolApproval?.[t.name] ?? t.annotations?.readOnlyHint !== true;

/** A tool as the runtime offers it: an MCP tool is one function per allowed server tool. */
export type ToolFunction = ToolItem & { serverTool?: ServerTool };

export const isMcp = (tool: Pick<ToolItem, 'baseToolCode'>) => tool.baseToolCode === 'mcp';

/** A function name the model can call: the display name's words, lowercase, joined by underscores. */
export const functionName = (t: Pick<ToolItem, 'displayName'>) =>
  t.displayName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60) || 'tool';

/**
 * The function of a tool a held call named: an MCP tool's by the name the model called (none when
 * that server tool is no longer allowed), any other tool itself.
 */
export const functionNamed = (tool: ToolItem, name: string): ToolFunction | undefined =>
  isMcp(tool) ? functionsOf(tool).find((f) => functionName(f) === name) : tool;

/**
 * The functions a tool gives the model: itself, or for an MCP tool each server tool that is both
 * allowed and in the last refreshed list, named after the tool and the server tool.
 */
export function functionsOf(tool: ToolItem): ToolFunction[] {
  if (!isMcp(tool)) return [tool];
  const allowed = new Set(tool.configParams?.allowedTools ?? []);
  return (tool.serverTools?.tools ?? [])
    .filter((t) => allowed.has(t.name))
    .map((t) => ({
      ...tool,
      displayName: `${tool.displayName} ${t.name}`,
      description: t.description ?? t.annotations?.title ?? tool.description,
      serverTool: t,
    }));
}
