/**
 * What the model reads of an MCP tool result: its text blocks, a line for each other block, and
 * its structured content as JSON, cut at `max` characters. It goes back framed as data, as every
 * tool result does (areas/agents/framing.ts).
 */
interface ResultLike {
  content?: unknown;
  structuredContent?: unknown;
}

function blockText(b: unknown): string {
  const block = (b ?? {}) as {
    type?: unknown;
    text?: unknown;
    uri?: unknown;
    resource?: { uri?: unknown; text?: unknown };
  };
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  if (block.type === 'resource' && block.resource) {
    const r = block.resource;
    return typeof r.text === 'string' ? r.text : `[resource ${String(r.uri ?? '')}]`;
  }
  if (block.type === 'resource_link') return `[resource link ${String(block.uri ?? '')}]`;
  return `[${typeof block.type === 'string' ? block.type : 'content'} omitted]`;
}

export function resultText(r: ResultLike, max: number): string {
  const parts = Array.isArray(r.content) ? r.content.map(blockText) : [];
  if (r.structuredContent !== undefined && r.structuredContent !== null) {
    const json = JSON.stringify(r.structuredContent);
    if (!parts.includes(json)) parts.push(json);
  }
  const s = parts.join('\n');
  return s.length > max ? `${s.slice(0, max)}… [cut at ${max} characters]` : s;
}
