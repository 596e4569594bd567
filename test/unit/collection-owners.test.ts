import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Every stored collection has one owning area, which alone builds its keys (docs/architecture.md,
 * "One owner per concept"): the others read it through the owner's readers and write it through
 * the owner's write builders. A child collection (`PARENT#CHILD`) is its own owner's even under
 * another area's partition (an agent's day stats are analytics'). The plumbing's own collections
 * (the audit log, integration events) belong to shared/data.
 */
const OWNERS: Record<string, string> = {
  AGENT: 'agents',
  'AGENT#VERSION': 'agents',
  'AGENT#WIDGET': 'agents',
  'AGENT#STATS': 'analytics',
  WIDGET: 'agents',
  'UNIQUE#WIDGET_KEY': 'agents',
  AUDIT: 'shared/data',
  INTEGRATION_EVENT: 'shared/data',
  BCM_CONFIG: 'bcm',
  'BCM_CONFIG#LOG': 'bcm',
  BIA: 'bcm',
  'BIA#ASSIGN': 'bcm',
  'BIA#ENTRY': 'bcm',
  RISK: 'bcm',
  'RISK#ACTION': 'bcm',
  'RISK#ASSESS': 'bcm',
  BILLING: 'billing',
  INVOICE: 'billing',
  PAYMENT: 'billing',
  PAYMENT_METHOD: 'billing',
  PLAN: 'billing',
  SUBSCRIPTION: 'billing',
  CALENDAR: 'calendars',
  'CALENDAR#APPOINTMENT': 'calendars',
  'CALENDAR#SLOT': 'calendars',
  'UNIQUE#CALENDAR_FEED': 'calendars',
  CHANNEL: 'channels',
  'UNIQUE#CHANNEL': 'channels',
  'CHANNEL#INBOUND': 'channels',
  'CHANNEL#SENT': 'channels',
  'CHANNEL#EVENT': 'connector',
  'CHANNEL#MESSAGE': 'connector',
  'CHANNEL#TEAMS_REFERENCE': 'connector',
  'CHANNEL#TEMPLATE': 'connector',
  'UNIQUE#WA_TEMPLATE': 'connector',
  PROACTIVE_MESSAGE: 'connector',
  'CHANNEL#USER': 'conversations',
  CONVERSATION: 'conversations',
  'CONVERSATION#IDEM': 'conversations',
  'CONVERSATION#MESSAGE': 'conversations',
  CONVERSATION_SETTINGS: 'conversations',
  VISITOR_SPEND: 'conversations',
  SITE: 'content',
  'UNIQUE#DOMAIN': 'content',
  'UNIQUE#MASTER_SITE': 'content',
  'UNIQUE#PAGE_SLUG': 'content',
  'UNIQUE#POST_SLUG': 'content',
  PRODUCT: 'catalog',
  SUPPLIER: 'catalog',
  'UNIQUE#PRODUCT_CODE': 'catalog',
  TENANT: 'identity',
  USER: 'identity',
  DEPARTMENT: 'identity',
  GROUP: 'identity',
  'GROUP#MEMBER': 'identity',
  INVITATION: 'identity',
  ROLE: 'identity',
  'UNIQUE#EMAIL': 'identity',
  'UNIQUE#GROUP_NAME': 'identity',
  'UNIQUE#INVITATION_CODE': 'identity',
  'UNIQUE#ROLE_NAME': 'identity',
  'UNIQUE#SLUG': 'identity',
  KB: 'knowledge',
  'KB#DOC': 'knowledge',
  'KB#UPLOAD': 'knowledge',
  KB_MCP: 'knowledge',
  'KB#SOURCE': 'knowledge',
  'KB#PAGE': 'knowledge',
  'KB#SITE_SOURCE': 'knowledge',
  'KB#SEGMENT': 'knowledge',
  'KB#SEGMENT_MEMBER': 'knowledge',
  GATEWAY_KEY: 'llm-gateway',
  'UNIQUE#GATEWAY_KEY_HASH': 'llm-gateway',
  LLM_ALLOWANCE: 'llm-gateway',
  LLM_MODEL: 'llm-gateway',
  'UNIQUE#LLM_MODEL_NAME': 'llm-gateway',
  LLM_RESPONSE: 'llm-gateway',
  LLM_USAGE: 'analytics',
  USAGE_EVENT: 'analytics',
  PROMPT: 'prompts',
  'PROMPT#AB_RESULT': 'prompts',
  'PROMPT#AB_TEST': 'prompts',
  'PROMPT#EVALUATION': 'prompts',
  'PROMPT#TEST_CASE': 'prompts',
  TOOL: 'tools',
  WEBHOOK_SUBSCRIPTION: 'outbound-webhooks',
  'WEBHOOK_SUBSCRIPTION#DELIVERY': 'outbound-webhooks',
  'WEBHOOK_SUBSCRIPTION#TESTS_IN_FLIGHT': 'outbound-webhooks',
};

/**
 * Keys whose collection is a value, not a literal: each is named here with the owner and the
 * collections the value can be (its type bounds it).
 */
const COMPUTED: Record<string, { owner: string; why: string }> = {
  // A held call's owner is a conversation or the agent's playground (parentOf): both children are the agents'.
  'areas/agents/records.ts': { owner: 'agents', why: 'actions and paused turns under CONVERSATION or AGENT' },
  // LLM_USAGE or USAGE_EVENT, the two record kinds the analytics area ingests.
  'areas/analytics/records.ts': { owner: 'analytics', why: 'the ingested record kinds' },
  // A knowledge base's children (DOC, CHUNK, TERM, UPLOAD) built from one helper.
  'areas/knowledge/records.ts': { owner: 'knowledge', why: "a base's children" },
};

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'areas', 'shared'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f.endsWith('.ts'));

const ownerOf = (file: string) =>
  file.startsWith('areas/') ? file.split('/')[1]! : file.split('/').slice(0, 2).join('/');

/** Every `keys.<builder>(...)` call of a file, as the collection it names ('*' where it is not a literal). */
function collectionsIn(file: string): { collection: string; line: number }[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { collection: string; line: number }[] = [];
  const lit = (n: ts.Node | undefined) => (n && ts.isStringLiteral(n) ? n.text : '*');
  const visit = (n: ts.Node) => {
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      ts.isIdentifier(n.expression.expression) &&
      n.expression.expression.text === 'keys'
    ) {
      const a = n.arguments;
      const builders: Record<string, () => string> = {
        tenantItem: () => lit(a[1]),
        tenantCollection: () => lit(a[1]),
        platformItem: () => lit(a[0]),
        platformCollection: () => lit(a[0]),
        childItem: () => `${lit(a[1])}#${lit(a[3])}`,
        childCollection: () => `${lit(a[1])}#${lit(a[3])}`,
        unique: () => `UNIQUE#${lit(a[0])}`,
        user: () => 'USER',
        userCollection: () => 'USER',
      };
      const name = builders[n.expression.name.text]?.();
      if (name) found.push({ collection: name, line: source.getLineAndCharacterOfPosition(n.getStart()).line + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

const uses = files.flatMap((file) => collectionsIn(file).map((u) => ({ ...u, file, area: ownerOf(file) })));

describe('every stored collection has one owner, which alone builds its keys', () => {
  it('finds the key builders it checks', () => {
    expect(uses.length).toBeGreaterThan(100);
  });

  it('names an owner for every collection the code keys', () => {
    const unknown = uses.filter((u) => !u.collection.includes('*') && !OWNERS[u.collection]);
    expect(unknown.map((u) => `${u.file}:${u.line} ${u.collection}`)).toEqual([]);
  });

  it("builds a collection's keys only in its owner (shared/data/keys.ts holds the primitives)", () => {
    const outside = uses.filter((u) =>
      u.collection.includes('*') ? COMPUTED[u.file]?.owner !== u.area : OWNERS[u.collection] !== u.area,
    );
    expect(
      outside.map((u) => `${u.file}:${u.line} ${u.collection} (owner ${OWNERS[u.collection] ?? 'computed'})`),
    ).toEqual([]);
  });

  it('no exposed module hands a key builder to another area', () => {
    const exposed = files.filter((f) => /^areas\/[^/]+\/for-[^/]+\.ts$/.test(f));
    const builders = exposed.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/export \{([^}]*)\}/g)].flatMap(([, names]) =>
        names!
          .split(',')
          .map((n) => n.trim())
          .filter(
            (n) =>
              (/(Key|Keys|List|Collection)$/.test(n) && !/By[A-Z]\w*$/.test(n)) ||
              /^(keys|prompts|tools|gatewayKeys)$/.test(n),
          )
          .map((n) => `${file}: ${n}`),
      ),
    );
    expect(builders).toEqual([]);
  });
});
