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
import { pinnedVersion, renderTemplate } from '#areas/prompts/for-agents.ts';
import {
  functionName,
  functionsOf,
  modelOutput,
  readTools,
  type ToolFunction,
  type ToolItem,
  runTool,
  toolParameters,
} from '#areas/tools/for-agents.ts';
import { ApiError } from '#shared/http/errors.ts';
import { type Citation, citationsOf } from './citations.ts';
import { agentPromptMissing, agentUnavailable } from './errors.ts';
import { logger } from '#shared/runtime/logger.ts';
import { needsApproval } from '#areas/tools/for-agents.ts';
import { leakGuard, PROMPT_WITHHELD } from './leak-guard.ts';
import { FRAMING_RULE, sourcesMessage, toolResultMessage, visitorMessage } from './framing.ts';
import type { AgentSnapshot } from './snapshot.ts';

/** Model steps in one turn (each tool round is one); the last step offers no tools. */
export const MAX_STEPS = 5;
const ESCALATE_TOOL = 'escalate_to_human';
const NO_SOURCE = 'No source reached the confidence threshold';

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
  /**
   * The conversation's model input already held material nobody vouches for (an earlier turn read a
   * tool result or a flagged chunk): side-effecting calls wait for a person whatever the tool's setting.
   */
  untrusted?: boolean;
}

export interface ToolCallRecord {
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
  /** The model read material nobody vouches for (a flagged chunk, a tool result): later turns stay wary. */
  untrusted: boolean;
  /** Set when a call waits for a person: the turn stopped there, to be resumed once it is decided. */
  paused?: PausedTurn;
  /** Answered with the agent's no-answer reply, without a model call: no source reached its threshold. */
  declined?: boolean;
}

export type TurnEvent = { type: 'text'; text: string } | { type: 'final'; result: TurnResult };

/**
 * The pinned prompt version and the agent's tools, tenant scoped, read at once: the version in two
 * requests (its key needs the prompt's version index), the tools in one BatchGet beside them.
 */
async function loadSetup(tenantId: string, agent: AgentSnapshot) {
  const [version, found] = await Promise.all([
    pinnedVersion(tenantId, agent.promptId, agent.promptVersionId),
    agent.toolIds.length ? readTools(tenantId, agent.toolIds) : [],
  ]);
  if (!version) throw agentPromptMissing();
  // An MCP tool is one function per server tool its tenant allowed.
  const tools = found.filter((x) => x.status === 'ACTIVE' && !x.deletedAt).flatMap(functionsOf);
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

const toolDef = (t: ToolFunction): ToolDef => ({
  type: 'function',
  function: {
    name: functionName(t),
    description: t.description ?? t.baseToolName,
    parameters: toolParameters(t),
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
  const byName = new Map(tools.map((x) => [functionName(x), x]));
  const defs = [...byName.values()].map(toolDef).concat(escalateDef);
  const citations = citationsOf(matches, agent.escalation.noAnswerThreshold);
  const best = matches.reduce((s, m) => Math.max(s, m.score), 0);
  const belowThreshold = best < agent.escalation.noAnswerThreshold;
  const noAnswer = agent.escalation.enabled && agent.knowledgeBaseIds.length > 0 && belowThreshold;
  const offTopic = agent.answerOnlyFromKnowledge === true && belowThreshold;
  // The ingest check's flag (instruction-flags.ts): a turn that read one is wary of side effects.
  const flagged = matches.some((m) => m.flagged);
  return { messages, byName, defs, citations, noAnswer, offTopic, flagged, systemText: messages[0]?.content ?? '' };
}

/** A call held for a person's approval: what the staff see and what the resumed turn answers. */
export interface PendingCall {
  toolCallId: string;
  toolId: string;
  /** The function name the model called. */
  tool: string;
  arguments: Record<string, unknown>;
  /** Why the model wants it: the text it wrote with the call, if any. */
  reason: string | null;
  timeoutMinutes: number;
}

/**
 * A turn stopped at a call that waits for a person: the model's input so far (the calls' results
 * missing), the step it reached and what it spent. Stored until the calls are decided.
 */
export interface PausedTurn {
  messages: ChatMessage[];
  step: number;
  usage: Usage;
  records: ToolCallRecord[];
  citations: Citation[];
  untrusted: boolean;
  noAnswer: boolean;
  pending: PendingCall[];
}

/** A decided call as the resumed turn gives it to the model: what the tool returned, or why it did not run. */
export interface CallOutcome {
  ok: boolean;
  text: string;
  /** Whether the tool ran (its result is material nobody vouches for). */
  ran: boolean;
  durationMs: number;
}

const DEFAULT_APPROVAL_MINUTES = 60;
/** The model's input kept while a turn waits: well under DynamoDB's 400 KB item. */
const MAX_PAUSED_BYTES = 300_000;
export const PENDING_MESSAGE =
  'A member of our team needs to confirm this before I go ahead. I will continue here as soon as they have.';

interface StepContext {
  input: TurnInput;
  byName: Map<string, ToolFunction>;
  messages: ChatMessage[];
  records: ToolCallRecord[];
  untrusted: boolean;
  /** The text the model wrote with the calls: the reason a person sees. */
  said: string;
}

/**
 * Runs the calls of one model step; records each and appends its result for the model. A call that
 * needs a person's approval does not run: it is returned as pending, without a result.
 */
async function runCalls(
  calls: ToolCall[],
  ctx: StepContext,
): Promise<{ escalate?: { reason: string }; pending: PendingCall[]; ran: boolean }> {
  let escalate: { reason: string } | undefined;
  const pending: PendingCall[] = [];
  let ran = false;
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
      else if (needsApproval(tool, args, ctx.untrusted)) {
        pending.push({
          toolCallId: call.id,
          toolId: tool.id,
          tool: name,
          arguments: args,
          reason: ctx.said.trim().slice(0, 1000) || null,
          timeoutMinutes: tool.configParams?.approvalTimeoutMinutes ?? DEFAULT_APPROVAL_MINUTES,
        });
        continue;
      } else {
        out = await callTool(tool, args, ctx.input);
        ran = true;
      }
    }
    ctx.records.push({ name, status: out.ok ? 'ok' : 'error', durationMs: Date.now() - started, result: out.text });
    ctx.messages.push({ role: 'tool', tool_call_id: call.id, content: toolResultMessage(name, out.ok, out.text) });
  }
  return { escalate, pending, ran };
}

/** One tool call as the model reads its outcome (a summary of the result, or the error). */
export async function callTool(
  tool: ToolItem,
  args: Record<string, unknown>,
  input: Pick<TurnInput, 'tenantId' | 'agent' | 'requestId' | 'conversationId'>,
): Promise<{ ok: boolean; text: string }> {
  const r = await runTool(tool, args, {
    tenantId: input.tenantId,
    agentId: input.agent.agentId,
    requestId: input.requestId,
    ...(input.conversationId ? { conversationId: input.conversationId } : {}),
  });
  return { ok: r.ok, text: modelOutput(tool, r) };
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
export const DEFAULT_NO_ANSWER_REPLY =
  'I can only help with questions about what our documentation covers, and I could not find this in it.';

/** The off-topic answer of an agent that answers only from its knowledge: its reply, a hand-off when it escalates. */
const declined = (agent: AgentSnapshot): TurnResult => ({
  message: agent.noAnswerReply || DEFAULT_NO_ANSWER_REPLY,
  citations: [],
  toolCalls: [],
  ...(agent.escalation.enabled ? { escalate: { reason: NO_SOURCE } } : {}),
  usage: NO_USAGE,
  untrusted: false,
  declined: true,
});

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
  if (prep.offTopic) {
    yield { type: 'final', result: declined(input.agent) };
    return;
  }
  yield* steps(
    input,
    {
      ...prep,
      records: [],
      usage: NO_USAGE,
      untrusted: !!input.untrusted || prep.flagged,
      firstStep: 1,
    },
    opts,
  );
}

/**
 * A paused turn taken up again once its calls are decided: each call's outcome (the tool's result,
 * or the person's refusal) goes to the model as that call's result, and the turn goes on from the
 * step after the one that paused, with the tools as they are now.
 */
export async function* resumeTurnStream(
  input: TurnInput,
  paused: PausedTurn,
  outcomes: ReadonlyMap<string, CallOutcome>,
  opts: { stream?: boolean } = {},
): AsyncGenerator<TurnEvent> {
  const { tools, systemText } = await loadSetup(input.tenantId, input.agent)
    .then((s) => ({ tools: s.tools, systemText: paused.messages.find((m) => m.role === 'system')?.content ?? '' }))
    .catch((err) => rethrow(err, input.requestId));
  const byName = new Map(tools.map((x) => [functionName(x), x]));
  const messages = [...paused.messages];
  const records = [...paused.records];
  let untrusted = paused.untrusted;
  for (const p of paused.pending) {
    const o = outcomes.get(p.toolCallId) ?? {
      ok: false,
      text: 'No one decided on this call.',
      ran: false,
      durationMs: 0,
    };
    if (o.ran) untrusted = true;
    records.push({ name: p.tool, status: o.ok ? 'ok' : 'error', durationMs: o.durationMs, result: o.text });
    messages.push({ role: 'tool', tool_call_id: p.toolCallId, content: toolResultMessage(p.tool, o.ok, o.text) });
  }
  yield* steps(
    input,
    {
      messages,
      byName,
      defs: [...byName.values()].map(toolDef).concat(escalateDef),
      citations: paused.citations,
      noAnswer: paused.noAnswer,
      offTopic: false,
      flagged: false,
      systemText,
      records,
      usage: paused.usage,
      untrusted,
      firstStep: paused.step + 1,
    },
    opts,
  );
}

type Prepared = Awaited<ReturnType<typeof prepareTurn>>;
interface Progress extends Prepared {
  records: ToolCallRecord[];
  usage: Usage;
  untrusted: boolean;
  firstStep: number;
}

/** The model steps from `firstStep` on: tools run between them; a call that waits for a person pauses the turn. */
async function* steps(input: TurnInput, p: Progress, opts: { stream?: boolean }): AsyncGenerator<TurnEvent> {
  const { messages, byName, defs, citations, records } = p;
  const guard = leakGuard(p.systemText);
  let { usage, untrusted } = p;
  let escalate: { reason: string } | undefined;
  let text = '';
  for (let step = p.firstStep; step <= MAX_STEPS; step++) {
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
        let shown = 0;
        let leaked = false;
        for await (const c of chatStream(call)) {
          if (c.type === 'text') {
            content += c.text;
            // Held back by the guard's window, so a recital of the prompt is never shown in part.
            leaked ||= guard.leaks(content.slice(Math.max(0, shown - 2 * guard.holdBack)));
            const upTo = content.length - guard.holdBack;
            if (!leaked && upTo > shown) {
              yield { type: 'text', text: content.slice(shown, upTo) };
              shown = upTo;
            }
          } else if (c.type === 'tool_call') calls.push(c.call);
          else if (c.type === 'done') usage = addUsage(usage, c.usage);
        }
        if (!leaked && !guard.leaks(content) && content.length > shown)
          yield { type: 'text', text: content.slice(shown) };
      } else {
        const r = await chat(call);
        content = r.message.content ?? '';
        calls = r.message.toolCalls;
        usage = addUsage(usage, r.usage);
      }
    } catch (err) {
      rethrow(err, input.requestId);
    }
    text = guard.leaks(content) ? PROMPT_WITHHELD : content;
    // The last step's tool calls are not run: a model that ignores tool_choice none still stops here.
    if (!calls.length || step === MAX_STEPS) break;
    messages.push({ role: 'assistant', content: content || null, tool_calls: calls });
    const ran = await runCalls(calls, { input, byName, messages, records, untrusted, said: content });
    untrusted ||= ran.ran;
    escalate = ran.escalate ?? escalate;
    if (ran.pending.length && !escalate) {
      const paused: PausedTurn = {
        messages,
        step,
        usage,
        records,
        citations,
        untrusted,
        noAnswer: p.noAnswer,
        pending: ran.pending,
      };
      if (Buffer.byteLength(JSON.stringify(paused), 'utf8') <= MAX_PAUSED_BYTES) {
        const message = text ? `${text}\n\n${PENDING_MESSAGE}` : PENDING_MESSAGE;
        yield { type: 'final', result: { message, citations, toolCalls: records, usage, untrusted, paused } };
        return;
      }
      // Too much to keep until a person decides: the calls are refused and the model told so.
      for (const c of ran.pending) {
        const text =
          'This call needs a person to approve it, and this conversation is too long to wait; nothing was done.';
        records.push({ name: c.tool, status: 'error', durationMs: 0, result: text });
        messages.push({ role: 'tool', tool_call_id: c.toolCallId, content: toolResultMessage(c.tool, false, text) });
      }
    }
    if (escalate) break;
  }
  if (!escalate && p.noAnswer) escalate = { reason: NO_SOURCE };
  if (!escalate && !text) text = 'I could not complete this request.';
  if (escalate && !text) text = 'I am handing this conversation to a member of our team.';
  yield { type: 'final', result: { message: text, citations, toolCalls: records, escalate, usage, untrusted } };
}
