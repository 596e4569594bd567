/**
 * Realistic bugs for `npm run mutate` (scripts/mutate.ts): each replaces one piece of text of one
 * file and names the tests that must then fail. Modeled on what a mutation run of the AI runtime
 * found the tests blind to (docs/records/mutation-runs.md); a mutant whose text has changed stops
 * the run, so the list stays true to the code.
 */
export interface Mutant {
  id: string;
  bug: string;
  file: string;
  find: string;
  replace: string;
  tests: string[];
}

const CONVERSATIONS = 'test/integration/ai-conversations.test.ts';
const FAILURES = 'test/integration/ai-conversations-failures.test.ts';
const AGENTS = 'test/integration/ai-agents.test.ts';
const RUNTIME = 'test/integration/ai-runtime.test.ts';
const CONNECTOR = ['test/integration/ai-connector.test.ts', 'test/integration/ai-connector-hostile.test.ts'];
const SIGNATURES = 'test/unit/ai-channel-signatures.test.ts';
const KNOWLEDGE = 'test/integration/ai-knowledge.test.ts';
const HTTP_TOOL = ['test/unit/ai-tools-http.test.ts'];
const DB_TOOL = ['test/unit/ai-tools-database-server.test.ts', 'test/unit/ai-tools-database.test.ts'];
const GATEWAY = ['test/integration/llm-gateway.test.ts', 'test/integration/llm-gateway-limits.test.ts'];

export const mutants: Mutant[] = [
  {
    id: 'knowledge-worker-model-grant',
    bug: 'the indexing worker loses its grant on the stage’s models (it embeds through the gateway in-process)',
    file: 'shared/routes/groups.ts',
    find: 'OpenAI-compatible endpoint whose key is a vault secret).\n    bedrock: true,',
    replace: 'OpenAI-compatible endpoint whose key is a vault secret).\n    bedrock: false,',
    tests: ['test/deployed/deployed.test.ts', 'test/infra/iam.test.ts'],
  },
  {
    id: 'agents-pin-newest',
    bug: 'publishing pins the prompt’s newest version instead of its Active one',
    file: 'areas/agents/manage-agents.ts',
    find: 'promptVersionId: prompt.activeVersionId,',
    replace:
      'promptVersionId: Object.entries(prompt.versionIndex).sort((x, y) => y[1] - x[1])[0]?.[0] ?? prompt.activeVersionId,',
    tests: [AGENTS],
  },
  {
    id: 'agents-tool-status',
    bug: 'a turn offers and runs a tool whatever its status',
    file: 'areas/agents/runtime.ts',
    find: "x.status === 'ACTIVE' && !x.deletedAt",
    replace: '!x.deletedAt',
    tests: [CONVERSATIONS],
  },
  {
    id: 'agents-no-answer',
    bug: 'no escalation when no source reached the confidence threshold',
    file: 'areas/agents/runtime.ts',
    find: 'if (!escalate && p.noAnswer) escalate',
    replace: 'if (!escalate && false) escalate',
    tests: [RUNTIME],
  },
  {
    id: 'agents-last-step-tools',
    bug: 'the last model step still runs the tools it calls',
    file: 'areas/agents/runtime.ts',
    find: 'if (!calls.length || step === MAX_STEPS) break;',
    replace: 'if (!calls.length) break;',
    tests: ['test/integration/ai-runtime-steps.test.ts'],
  },
  {
    id: 'conversations-origin-prefix',
    bug: 'an Origin that only starts with an allowed one opens a session',
    file: 'areas/conversations/widget.ts',
    find: '!widget.allowedOrigins.includes(from)',
    replace: '!widget.allowedOrigins.some((o) => from.startsWith(o))',
    tests: [CONVERSATIONS],
  },
  {
    id: 'conversations-closed-takes-messages',
    bug: 'a closed conversation still takes a visitor’s message',
    file: 'areas/conversations/lifecycle.ts',
    find: "c.status === 'Open' || c.status === 'Escalated';",
    replace: "c.status !== 'Deleted';",
    tests: [CONVERSATIONS],
  },
  {
    id: 'conversations-session-expiry',
    bug: 'an expired widget session still opens its conversation',
    file: 'areas/conversations/session.ts',
    find: 'Date.parse(stored.sessionExpiresAt) > now &&',
    replace: '',
    tests: [CONVERSATIONS, FAILURES],
  },
  {
    id: 'conversations-close-counted-twice',
    bug: 'every write of a closed conversation records it for analytics again',
    file: 'areas/conversations/store.ts',
    find: 'const closing = isClosed(next) && !isClosed(current);',
    replace: 'const closing = isClosed(next);',
    tests: [FAILURES],
  },
  {
    id: 'connector-replay',
    bug: 'a replayed channel event is claimed again (the claim written unconditionally)',
    file: 'areas/connector/inbound-claims.ts',
    find: 'orConflict(putNew({ ...key, ...claimed }), duplicate)',
    replace: 'putItem({ ...key, ...claimed })',
    tests: CONNECTOR,
  },
  {
    id: 'connector-stale-event',
    bug: 'a message its platform dated long ago runs again once its claim expired',
    file: 'areas/connector/webhook.ts',
    find: 'if (events.some(stale)) throw staleEvent();',
    replace: '',
    tests: CONNECTOR,
  },
  {
    id: 'connector-discord-freshness',
    bug: 'a Discord signature of any age is accepted',
    file: 'areas/channels/signatures.ts',
    find: 'if (!fresh(timestamp, nowSeconds)) return false;\n  return verifyEd25519',
    replace: 'return verifyEd25519',
    tests: [SIGNATURES, ...CONNECTOR],
  },
  {
    id: 'connector-slack-freshness',
    bug: 'a Slack signature of any age is accepted',
    file: 'areas/channels/signatures.ts',
    find: 'if (!signingSecret || !fresh(timestamp, nowSeconds)) return false;',
    replace: 'if (!signingSecret) return false;',
    tests: [SIGNATURES, ...CONNECTOR],
  },
  {
    id: 'connector-telegram-token',
    bug: 'Telegram’s secret token is compared by prefix',
    file: 'areas/channels/signatures.ts',
    find: "return sameBytes(hmac('telegram', given), hmac('telegram', secretToken));",
    replace: 'return secretToken.startsWith(given);',
    tests: [SIGNATURES, ...CONNECTOR],
  },
  {
    id: 'connector-teams-body',
    bug: 'the Teams HMAC is checked over an empty body',
    file: 'areas/channels/signatures.ts',
    find: "return sameBytes(Buffer.from(m[1]!, 'base64'), hmac(key, bytes(rawBody)));",
    replace: "return sameBytes(Buffer.from(m[1]!, 'base64'), hmac(key, bytes('')));",
    tests: [SIGNATURES, ...CONNECTOR],
  },
  {
    id: 'gateway-stream-chain-failed',
    bug: 'a streamed call whose whole chain fails keeps its reservation and is not recorded',
    file: 'areas/llm-gateway/chat.ts',
    find: 'if (!started) {\n    await finish(a, { model: null, promptTokens: 0, completionTokens: 0 }, call.later);',
    replace: 'if (!started) {',
    tests: GATEWAY,
  },
  {
    id: 'gateway-stream-settled-twice',
    bug: 'a completed stream is settled and recorded twice',
    file: 'areas/llm-gateway/chat.ts',
    find: 'settled = true;',
    replace: '',
    tests: GATEWAY,
  },
  {
    id: 'gateway-fallback-billing',
    bug: 'a fallback’s answer is billed at the asked model’s prices',
    file: 'areas/llm-gateway/chat.ts',
    find: 'const costUsd = await finish(a, { model, ...answer.usage }, call.later);',
    replace: 'const costUsd = await finish(a, { ...answer.usage, model: a.chain[0]! }, call.later);',
    tests: GATEWAY,
  },
  {
    id: 'gateway-fallback-key-models',
    bug: 'a key’s model list does not bound its fallbacks',
    file: 'areas/llm-gateway/admission.ts',
    find: 'const chain = (await fallbackChain(model)).filter((m) => keyAllows(key, m));',
    replace: 'const chain = await fallbackChain(model);',
    tests: ['test/integration/llm-gateway-access.test.ts'],
  },
  {
    id: 'gateway-key-models',
    bug: 'a key’s model list is not checked',
    file: 'areas/llm-gateway/admission.ts',
    find: '!key?.models || key.models.includes(m.name) || key.models.includes(m.id);',
    replace: 'true;',
    tests: GATEWAY,
  },
  {
    id: 'gateway-revoked-key',
    bug: 'a revoked key is still admitted',
    file: 'areas/llm-gateway/admission.ts',
    find: 'if (key?.revokedAt) throw keyRevoked();',
    replace: '',
    tests: GATEWAY,
  },
  {
    id: 'gateway-key-budget',
    bug: 'a key’s budget is never reached',
    file: 'areas/llm-gateway/admission.ts',
    find: 'limit: key.maxBudgetUsd === null ? null : toNano(key.maxBudgetUsd),',
    replace: 'limit: null,',
    tests: GATEWAY,
  },
  {
    id: 'gateway-refusal-holds',
    bug: 'a refused call keeps its allowance reservation',
    file: 'areas/llm-gateway/admission.ts',
    find: "allowanceHeld.status === 'fulfilled' && allowanceHeld.value && giveBack(allowanceHold, requestId),",
    replace: 'false,',
    tests: GATEWAY,
  },
  {
    id: 'gateway-user-permission',
    bug: 'any tenant user spends the allowance through /v1 with their sign-in',
    file: 'areas/llm-gateway/routes.ts',
    find: "const v1Auth = { kind: 'gatewayKey', permission: 'ai:use' } as const;",
    replace: "const v1Auth = { kind: 'gatewayKey' } as const;",
    tests: ['test/integration/llm-gateway-access.test.ts'],
  },
  {
    id: 'gateway-should-retry',
    bug: 'a spent budget is answered without x-should-retry: false (clients retry into the rate limit)',
    file: 'shared/http/openai-error.ts',
    find: "...(retryable(err) ? {} : { 'x-should-retry': 'false' }),",
    replace: '',
    tests: ['test/integration/llm-gateway-wire.test.ts'],
  },
  {
    id: 'tools-http-allowed-hosts',
    bug: 'the HTTP tool reaches a host its configuration does not allow',
    file: 'areas/tools/built-in/http-request.ts',
    find: 'if (!allowedHosts(tool).includes(host)) throw',
    replace: 'if (false) throw',
    tests: HTTP_TOOL,
  },
  {
    id: 'tools-non-public',
    bug: 'a host that resolves to a private or metadata address is connected to',
    file: 'shared/http/address-guard.ts',
    find: 'if (bad) throw new Error',
    replace: 'if (false) throw new Error',
    tests: [...HTTP_TOOL, ...DB_TOOL],
  },
  {
    id: 'tools-redirect-recheck',
    bug: 'a redirect is followed without checking its target',
    file: 'areas/tools/built-in/http-request.ts',
    find: 'const target = await pinTarget(checkUrl(next, tool));',
    replace:
      "const target = hop ? { url: new URL(next), address: new URL(next).hostname.replace(/^\\[|\\]$/g, ''), family: 4 as const } : await pinTarget(checkUrl(next, tool));",
    tests: HTTP_TOOL,
  },
  {
    id: 'tools-http-size',
    bug: 'the HTTP tool reads a response of any size',
    file: 'shared/http/pinned-request.ts',
    find: 'if (size + c.length > r.maxBytes) {',
    replace: 'if (size + c.length > r.maxBytes * 1000) {',
    tests: HTTP_TOOL,
  },
  {
    id: 'tools-db-read-only-session',
    bug: 'a read-only Db Query session can commit its way out of read only',
    file: 'areas/tools/built-in/postgres-session.ts',
    find: "if (mode === 'query') options.push('-c default_transaction_read_only=on');",
    replace: '',
    tests: DB_TOOL,
  },
  {
    id: 'tools-db-multi-statement',
    bug: 'Db Query runs several statements in one call (simple protocol)',
    file: 'areas/tools/built-in/postgres-session.ts',
    find: "const config = { text: sql, values, ...rowLimit, queryMode: 'extended' };",
    replace: 'const config = { text: sql, values, ...rowLimit };',
    tests: DB_TOOL,
  },
  {
    id: 'tools-db-cursor',
    bug: 'Db Query reads the whole result before applying maxRows',
    file: 'areas/tools/built-in/postgres-session.ts',
    find: 'const rowLimit = maxRows === null ? {} : { rows: maxRows + 1 };',
    replace: 'const rowLimit = {};',
    tests: DB_TOOL,
  },
  {
    id: 'tools-db-target',
    bug: 'the database tool connects where the connection string says, unchecked',
    file: 'areas/tools/built-in/database.ts',
    find: 'const pinned = await (await addressGuard()).publicAddressOf(target.host);',
    replace: 'const pinned = { address: target.host };',
    tests: DB_TOOL,
  },
  {
    id: 'tools-email-dedupe',
    bug: 'Send Email sends to every copy of one address',
    file: 'areas/tools/built-in/send-email.ts',
    find: '.map((r) => r.trim().toLowerCase()),',
    replace: '.map((r) => r.trim()),',
    tests: ['test/integration/ai-tools-send-email.test.ts'],
  },
  {
    id: 'tools-email-subject',
    bug: 'Send Email passes CR/LF in the subject',
    file: 'areas/tools/built-in/send-email.ts',
    find: 'if (CONTROL.test(given)) return',
    replace: 'if (false) return',
    tests: ['test/integration/ai-tools-send-email.test.ts'],
  },
  {
    id: 'tools-email-limit',
    bug: 'Send Email has no per-conversation limit',
    file: 'areas/tools/built-in/send-limits.ts',
    find: 'if (!inConversation.allowed)',
    replace: 'if (false)',
    tests: ['test/integration/ai-tools-send-email.test.ts'],
  },
  {
    id: 'knowledge-vector-filter',
    bug: 'the vector query asks for every tenant’s vectors (no tenant and base filter)',
    file: 'areas/knowledge/retrieve.ts',
    find: 'filter: { tenantId: base.tenantId, kbId: base.id },',
    replace: 'filter: {},',
    tests: [KNOWLEDGE],
  },
  {
    id: 'knowledge-threshold',
    bug: 'scoreThreshold is ignored',
    file: 'areas/knowledge/retrieve.ts',
    find: '(call.scoreThreshold == null || c.score >= call.scoreThreshold)',
    replace: 'true',
    tests: [KNOWLEDGE],
  },
  {
    id: 'knowledge-deleted-document',
    bug: 'a deleted or failed document’s chunks are still retrieved',
    file: 'areas/knowledge/retrieve.ts',
    find: "if (!chunk || !doc || doc.status !== 'Indexed') continue;",
    replace: 'if (!chunk) continue;',
    tests: [KNOWLEDGE],
  },
  {
    id: 'knowledge-postings-twice',
    bug: 'a re-delivered document writes its postings again and counts its terms twice',
    file: 'areas/knowledge/keyword/postings.ts',
    find: "ConditionExpression: 'attribute_not_exists(pk)',",
    replace: '',
    tests: ['test/integration/hardening-knowledge.test.ts'],
  },
  {
    id: 'knowledge-zip-declared',
    bug: 'a DOCX’s declared unpacked size is not checked before unzipping',
    file: 'areas/knowledge/zip-check.ts',
    find: 'if (declared > limits.unpackedBytes)',
    replace: 'if (false)',
    tests: ['test/unit/knowledge-parse-limits.test.ts'],
  },
];
