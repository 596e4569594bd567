import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { queryItems } from '#shared/data/query.ts';
import { get } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { config } from '#shared/platform/config.ts';
import { planSlot, requireAgents } from '#areas/identity/for-agents.ts';
import { planLimitReached } from '#areas/agents/errors.ts';
import { readAgent } from './manage-agents.ts';
import {
  agentWidgets,
  DEFAULT_THEME,
  lookupOf,
  NO_LIMITS,
  newWidgetKey,
  normalOrigin,
  originProblem,
  toWidget,
  widgetCounter,
  widgetItem,
  widgetKey,
  widgetKeyLookup,
  WIDGET_KEY_PATTERN,
  type Theme,
  type WidgetLimits,
  type WidgetLookup,
  type WidgetRecord,
} from './widget-records.ts';

const change = (tenantId: string, actor: Principal, entityId: string, action: string, changes: Change['changes']) =>
  ({ tenantId, actor, entityType: 'Widget', entityId, action, changes }) satisfies Change;

/**
 * The widget a public key names, with its tenant, from one GetItem (the widget-session routes
 * of the conversations area). Null for an unknown, rotated or deleted key. The session still
 * checks `isActive`, the origin, and that the agent is Published and not deleted.
 */
export async function widgetByKey(key: string): Promise<(WidgetLookup & { theme: Theme }) | null> {
  if (!WIDGET_KEY_PATTERN.test(key)) return null;
  const found = await get<WidgetLookup>(widgetKeyLookup(key), { consistent: true });
  if (!found) return null;
  const { tenantId, widgetId, agentId, allowedOrigins, isActive } = found;
  // A lookup written before it carried the theme: the widget's own item has it (one more GetItem).
  const theme = found.theme ?? (await get<WidgetRecord>(widgetKey(tenantId, widgetId)))?.theme ?? DEFAULT_THEME;
  return { tenantId, widgetId, agentId, allowedOrigins, isActive, theme };
}

/** The caps a widget sets on its visitors; none for a widget deleted meanwhile. */
export async function widgetLimits(tenantId: string, widgetId: string): Promise<WidgetLimits> {
  const w = await get<WidgetRecord>(widgetKey(tenantId, widgetId));
  return w?.limits ?? NO_LIMITS;
}

function origins(list: string[]) {
  const out = [...new Set(list.map(normalOrigin))];
  const problems = list
    .map((o, i) => ({ i, p: originProblem(o) }))
    .filter((x) => x.p)
    .map((x) => ({ path: `body.allowedOrigins.${x.i}`, message: x.p! }));
  if (problems.length) throw validationError(problems);
  return out;
}

const readWidget = async (tenantId: string, widgetId: string) => {
  const w = await get<WidgetRecord>(widgetKey(tenantId, widgetId), { consistent: true });
  if (!w) throw notFound('Widget');
  return w;
};

export async function listWidgets(tenantId: string, agentId: string) {
  await readAgent(tenantId, agentId, false);
  const items = await queryItems<WidgetRecord>({
    TableName: config.tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': agentWidgets(tenantId, agentId) },
    ScanIndexForward: false,
  });
  return items.map(toWidget);
}

export async function createWidget(
  tenantId: string,
  agentId: string,
  input: {
    name: string;
    allowedOrigins: string[];
    theme?: Partial<Theme> | null;
    limits?: Partial<WidgetLimits> | null;
  },
  actor: Principal,
) {
  const tenant = await requireAgents(tenantId);
  await readAgent(tenantId, agentId);
  const now = new Date().toISOString();
  const w: WidgetRecord = {
    id: crypto.randomUUID(),
    tenantId,
    agentId,
    name: input.name,
    allowedOrigins: origins(input.allowedOrigins),
    theme: { ...DEFAULT_THEME, ...(input.theme ?? {}) },
    limits: { ...NO_LIMITS, ...(input.limits ?? {}) },
    isActive: true,
    widgetKey: newWidgetKey(),
    createdAt: now,
    updatedAt: now,
  };
  await commitChange(
    [
      orConflict(planSlot(tenantId, 'widgets', 1, tenant), planLimitReached('maxWidgetIntegrations')),
      putNew(widgetItem(w)),
      putNew({ ...widgetKeyLookup(w.widgetKey), ...lookupOf(w) }),
      bumpCounter(widgetCounter(tenantId), 1),
      // The agent's widget list counts its own (it is the collection the widget is listed in).
      bumpCounter(agentWidgets(tenantId, agentId), 1),
    ],
    change(tenantId, actor, w.id, 'create', { agentId, name: w.name, allowedOrigins: w.allowedOrigins.join(' ') }),
    { now },
  );
  return toWidget(w);
}

export async function updateWidget(
  tenantId: string,
  widgetId: string,
  input: {
    name?: string;
    allowedOrigins?: string[];
    theme?: Partial<Theme> | null;
    limits?: Partial<WidgetLimits> | null;
    isActive?: boolean;
  },
  actor: Principal,
) {
  await requireAgents(tenantId);
  const w = await readWidget(tenantId, widgetId);
  const next: WidgetRecord = {
    ...w,
    name: input.name ?? w.name,
    allowedOrigins: input.allowedOrigins ? origins(input.allowedOrigins) : w.allowedOrigins,
    theme: input.theme ? { ...w.theme, ...input.theme } : w.theme,
    limits: input.limits ? { ...NO_LIMITS, ...w.limits, ...input.limits } : (w.limits ?? NO_LIMITS),
    isActive: input.isActive ?? w.isActive,
    updatedAt: new Date().toISOString(),
  };
  const lookup = lookupOf(next);
  await commitChange(
    [
      orConflict(
        updateItem(
          widgetKey(tenantId, widgetId),
          {
            name: next.name,
            allowedOrigins: next.allowedOrigins,
            theme: next.theme,
            limits: next.limits,
            isActive: next.isActive,
            updatedAt: next.updatedAt,
          },
          { condition: 'attribute_exists(pk) AND widgetKey = :k', values: { ':k': w.widgetKey } },
        ),
        notFound('Widget'),
      ),
      updateItem(
        widgetKeyLookup(w.widgetKey),
        { allowedOrigins: lookup.allowedOrigins, isActive: lookup.isActive, theme: lookup.theme },
        {
          condition: 'attribute_exists(pk)',
        },
      ),
    ],
    change(tenantId, actor, widgetId, 'update', {
      name: next.name,
      allowedOrigins: next.allowedOrigins.join(' '),
      isActive: next.isActive,
      limits: next.limits,
    }),
    { now: next.updatedAt },
  );
  return toWidget(next);
}

export async function deleteWidget(tenantId: string, widgetId: string, actor: Principal) {
  const w = await readWidget(tenantId, widgetId);
  await commitChange(
    [
      orConflict(
        deleteItem(widgetKey(tenantId, widgetId), 'attribute_exists(pk) AND widgetKey = :k', { ':k': w.widgetKey }),
        notFound('Widget'),
      ),
      deleteItem(widgetKeyLookup(w.widgetKey)),
      bumpCounter(widgetCounter(tenantId), -1),
      bumpCounter(agentWidgets(tenantId, w.agentId), -1),
      planSlot(tenantId, 'widgets', -1),
    ],
    change(tenantId, actor, widgetId, 'delete', { agentId: w.agentId, name: w.name }),
  );
}

/** The old key's lookup goes in the same transaction as the new one's: the old key stops at once. */
export async function rotateWidgetKey(tenantId: string, widgetId: string, actor: Principal) {
  await requireAgents(tenantId);
  const w = await readWidget(tenantId, widgetId);
  const next: WidgetRecord = { ...w, widgetKey: newWidgetKey(), updatedAt: new Date().toISOString() };
  await commitChange(
    [
      orConflict(
        updateItem(
          widgetKey(tenantId, widgetId),
          { widgetKey: next.widgetKey, updatedAt: next.updatedAt },
          {
            condition: 'attribute_exists(pk) AND widgetKey = :k',
            values: { ':k': w.widgetKey },
          },
        ),
        notFound('Widget'),
      ),
      deleteItem(widgetKeyLookup(w.widgetKey)),
      putNew({ ...widgetKeyLookup(next.widgetKey), ...lookupOf(next) }),
    ],
    change(tenantId, actor, widgetId, 'rotate-key', {}),
    { now: next.updatedAt },
  );
  return toWidget(next);
}

const ATTR_ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };
const attr = (value: string) => value.replace(/[&"<>]/g, (c) => ATTR_ESCAPES[c]!);

/**
 * The HTML a site owner pastes: the widget script from this API, with the widget's public key, and
 * where its calls go when that is not the script's origin (deployed: the conversations front door).
 */
export async function embedSnippet(tenantId: string, widgetId: string, apiBase: string, widgetApiBase = apiBase) {
  const w = await readWidget(tenantId, widgetId);
  const trim = (u: string) => u.replace(/\/$/, '');
  const src = `${trim(apiBase)}/api/ai/widget.js`;
  const calls = trim(widgetApiBase) === trim(apiBase) ? '' : ` data-api-base="${attr(trim(widgetApiBase))}"`;
  // The theme rides in the tag so the bubble is drawn in its colour and place before any request.
  const theme = ` data-primary-color="${attr(w.theme.primaryColor)}" data-position="${attr(w.theme.position)}" data-title="${attr(w.theme.title)}"`;
  return { snippet: `<script src="${src}" data-widget-key="${w.widgetKey}"${calls}${theme} async></script>` };
}
