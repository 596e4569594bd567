import {
  chat,
  chatStream,
  type ChatMessage,
  type ToolCall,
  type ToolDef,
  type Usage,
  type Caller,
} from '#areas/llm-gateway/for-agents.ts';
import { retrieve, type Match } from '#areas/knowledge/for-agents.ts';
import { renderTemplate, prompts, type PromptItem, type VersionItem } from '#areas/prompts/for-agents.ts';
import { tools as toolKeys, type ToolItem, runTool } from '#areas/tools/for-agents.ts';
import { keyId } from '#shared/data/keys.ts';
import { get, getMany } from '#shared/data/read.ts';
import { ApiError } from '#shared/http/errors.ts';
import { type Citation, citationsOf } from './citations.ts';
import { agentPromptMissing, agentUnavailable } from './errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { FRAMING_RULE, sourcesMessage, toolResultMessage, visitorMessage } from './framing.ts';
import type { AgentSnapshot } from './snapshot.ts';

/** Model steps in one turn (each tool round is one); the last step offers no tools. */
export const MAX_STEPS = 5;
const ESCALATE_TOOL = 'escalate_to_human';

export interface TurnInput {
  tenantId: string;
  /** The conversation the turn answers (tools count their limits per conversation); none in the playground. */
  conversationId?: string;
  agent: AgentSnapshot;
  messages: { role: 'user' | 'assistant'; content: string }[];
  variables?: Record<string, string>;
  visitor?: { name?: string | null } | null;
  caller: Caller;
  requestId: string;
}

interface ToolCallRecord {
  name: string;
  status: 'ok' | 'error';
  durationMs: number;
  result: string;
}

export interface TurnResult {
  message: string;
  citations: Citation[];
  toolCalls: ToolCallRecord[];
  escalate?: { reason: string };
  usage: Usage;
}

export type TurnEvent = { type: 'text'; text: string } | { type: 'final'; result: TurnResult };

/** A function name the model can call: the display name's words, lowercase, joined by underscores. */
const toolNameOf = (t: Pick<ToolItem, 'displayName'>) =>
  t.displayName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60) || 'tool';

const SUMMARY = 500;
const summarise = (v: unknown) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > SUMMARY ? `${s.slice(0, SUMMARY)}…` : s;
};

/**
 * Prompt, prompt version and tools, tenant scoped, in two DynamoDB requests: one BatchGet for the
 * prompt and the tools, one GetItem for the version (its key needs the prompt's version index).
 */
async function loadSetup(tenantId: string, agent: AgentSnapshot) {
  const promptK = prompts.key(tenantId, agent.promptId);
  const toolKs = agent.toolIds.map((id) => toolKeys.key(tenantId, id));
  const found = await getMany<PromptItem | ToolItem>([promptK, ...toolKs]);
  const prompt = found.get(keyId(promptK)) as PromptItem | undefined;
  const n = prompt?.versionIndex?.[agent.promptVersionId];
  const version = n === undefined ? undefined : await get<VersionItem>(prompts.version(tenantId, agent.promptId, n));
  if (!prompt || !version || version.id !== agent.promptVersionId) {
    throw agentPromptMissing();
  }
  const tools = toolKs
    .map((k) => found.get(keyId(k)) as ToolItem | undefined)
    .filter((x): x is ToolItem => !!x && x.status === 'ACTIVE' && !x.deletedAt && x.tenantId === tenantId);
  return { version, tools };
}

function systemPrompt(template: string, input: TurnInput) {
  const vars: Record<string, string> = {
    ...input.variables,
    agent_name: input.agent.name,
    // The visitor's self-given name is theirs to write, so it travels framed as data, never here.
    visitor_name: input.visitor?.name ? 'the visitor' : 'there',
    date: new Date().toISOString().slice(0, 10),
  };
  const r = renderTemplate(template, vars);
  // A placeholder no one supplied is left visible rather than failing the visitor's turn.
  if (r.ok) return withRule(r.text);
  const filled = Object.fromEntries(r.missing.map((m) => [m, `{{${m}}}`]));
  const again = renderTemplate(template, { ...vars, ...filled });
  return withRule(again.ok ? again.text : template);
}

const withRule = (text: string) => `${text}\n\n${FRAMING_RULE}`;

const source = (m: Match) => ({ title: m.documentTitle, text: m.text });

const escalateDef: ToolDef = {
  type: 'function',
  function: {
    name: ESCALATE_TOOL,
    description: 'Hand the conversation to a human when you cannot help or the visitor asks for a person',
    parameters: { type: 'object', properties: { reason: { type: 'string' } } },
  },
};

const toolDef = (t: ToolItem): ToolDef => ({
  type: 'function',
  function: {
    name: toolNameOf(t),
    description: t.description ?? t.baseToolName,
    parameters: { type: 'object', additionalProperties: true },
  },
});

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(raw || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

async function prepareTurn(input: TurnInput) {
  const { tenantId, agent } = input;
  const { version, tools } = await loadSetup(tenantId, agent);
  const lastUser = input.messages.findLast((m) => m.role === 'user')?.content ?? '';
  const matches =
    agent.knowledgeBaseIds.length && lastUser
      ? await retrieve({
          tenantId,
          kbIds: agent.knowledgeBaseIds,
          query: lastUser,
          caller: input.caller,
          requestId: input.requestId,
          whenNoBase: 'empty',
        })
      : [];
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(version.content, input) }];
  const name = input.visitor?.name;
  if (name) messages.push({ role: 'user', content: visitorMessage({ name }) });
  // Sources go just before the message they answer, so the visitor's message stays the last one.
  const lastUserAt = input.messages.findLastIndex((m) => m.role === 'user');
  for (const [i, m] of input.messages.entries()) {
    if (i === lastUserAt && matches.length)
      messages.push({ role: 'user', content: sourcesMessage(matches.map(source)) });
    messages.push({ role: m.role, content: m.content });
  }
  const byName = new Map(tools.map((x) => [toolNameOf(x), x]));
  const defs = [...byName.values()].map(toolDef).concat(escalateDef);
  const citations = citationsOf(matches, agent.escalation.noAnswerThreshold);
  const best = matches.reduce((s, m) => Math.max(s, m.score), 0);
  const noAnswer =
    agent.escalation.enabled && agent.knowledgeBaseIds.length > 0 && best < agent.escalation.noAnswerThreshold;
  return { messages, byName, defs, citations, noAnswer };
}

/** Runs the calls of one model step; records each and appends its result for the model. */
async function runCalls(
  calls: ToolCall[],
  ctx: { input: TurnInput; byName: Map<string, ToolItem>; messages: ChatMessage[]; records: ToolCallRecord[] },
): Promise<{ reason: string } | undefined> {
  let escalate: { reason: string } | undefined;
  for (const call of calls) {
    const started = Date.now();
    const name = call.function.name;
    const args = parseArgs(call.function.arguments);
    let out: { ok: boolean; text: string };
    if (name === ESCALATE_TOOL) {
      escalate = { reason: String(args?.reason ?? 'The agent asked for a human') };
      out = { ok: true, text: 'A human has been asked to take over.' };
    } else {
      const tool = ctx.byName.get(name);
      if (!tool) out = { ok: false, text: `No tool named ${name} is available` };
      else if (!args) out = { ok: false, text: 'The arguments are not a JSON object' };
      else {
        const r = await runTool(tool, args, {
          tenantId: ctx.input.tenantId,
          agentId: ctx.input.agent.agentId,
          requestId: ctx.input.requestId,
          ...(ctx.input.conversationId ? { conversationId: ctx.input.conversationId } : {}),
        });
        out = r.ok ? { ok: true, text: summarise(r.result) } : { ok: false, text: `Error: ${r.error}` };
      }
    }
    ctx.records.push({ name, status: out.ok ? 'ok' : 'error', durationMs: Date.now() - started, result: out.text });
    ctx.messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultMessage(name, out.ok, out.text) });
  }
  return escalate;
}

/** A refusal the caller can act on passes; any failure behind it is the agent's, whoever failed. */
function rethrow(err: unknown, requestId: string): never {
  if (err instanceof ApiError && err.status < 500) throw err;
  logger.error('agent turn failed', {
    requestId,
    error: err instanceof Error ? err.message : String(err),
    code: err instanceof ApiError ? err.code : undefined,
  });
  throw agentUnavailable();
}

/** One agent turn (docs/architecture.md, "Agents"): at most MAX_STEPS model calls, tools run between them. */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const final = await collect(runTurnStream(input));
  return final;
}

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnResult> {
  for await (const e of events) if (e.type === 'final') return e.result;
  throw agentUnavailable();
}

/** The streamed turn: text deltas of each step as they come, then one `final` event. */
export async function* runTurnStream(input: TurnInput, opts: { stream?: boolean } = {}): AsyncGenerator<TurnEvent> {
  const prep = await prepareTurn(input).catch((err) => rethrow(err, input.requestId));
  const { messages, byName, defs, citations } = prep;
  const records: ToolCallRecord[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let escalate: { reason: string } | undefined;
  let text = '';
  for (let step = 1; step <= MAX_STEPS; step++) {
    const call = {
      tenantId: input.tenantId,
      caller: { kind: 'agent' as const, agentId: input.agent.agentId },
      requestId: `${input.requestId}#${step}`,
      model: input.agent.modelId,
      messages,
      tools: defs,
      toolChoice: step === MAX_STEPS ? ('none' as const) : ('auto' as const),
      temperature: input.agent.temperature ?? undefined,
    };
    let content = '';
    let calls: ToolCall[] = [];
    try {
      if (opts.stream) {
        for await (const c of chatStream(call)) {
          if (c.type === 'text') {
            content += c.text;
            yield { type: 'text', text: c.text };
          } else if (c.type === 'tool_call') calls.push(c.call);
          else if (c.type === 'done') usage = addUsage(usage, c.usage);
        }
      } else {
        const r = await chat(call);
        content = r.message.content ?? '';
        calls = r.message.toolCalls;
        usage = addUsage(usage, r.usage);
      }
    } catch (err) {
      rethrow(err, input.requestId);
    }
    text = content;
    // The last step's tool calls are not run: a model that ignores tool_choice none still stops here.
    if (!calls.length || step === MAX_STEPS) break;
    messages.push({ role: 'assistant', content: content || null, tool_calls: calls });
    escalate = (await runCalls(calls, { input, byName, messages, records })) ?? escalate;
    if (escalate) break;
  }
  if (!escalate && prep.noAnswer) escalate = { reason: 'No source reached the confidence threshold' };
  if (!escalate && !text) text = 'I could not complete this request.';
  if (escalate && !text) text = 'I am handing this conversation to a member of our team.';
  yield { type: 'final', result: { message: text, citations, toolCalls: records, escalate, usage } };
}
