import { createHash, randomBytes } from 'node:crypto';
import { keys } from '#shared/data/keys.ts';

/**
 * A widget is `{t}#WIDGET` / widgetId, listed per agent on gsi1 (`{t}#AGENT#{agentId}#WIDGET`).
 * Its public key (`wk_` + 32 random bytes, base64url) is found by a platform lookup item keyed by
 * the key's SHA-256, so a widget session finds the widget and its tenant with one GetItem and a
 * leaked table never hands out usable keys. The lookup carries what a session checks first.
 */
export const widgetKey = (tenantId: string, widgetId: string) => keys.tenantItem(tenantId, 'WIDGET', widgetId);
export const agentWidgets = (tenantId: string, agentId: string) =>
  keys.childCollection(tenantId, 'AGENT', agentId, 'WIDGET');
export const widgetCounter = (tenantId: string) => keys.tenantCollection(tenantId, 'WIDGET');
const hashWidgetKey = (key: string) => createHash('sha256').update(key).digest('base64url');
export const widgetKeyLookup = (key: string) => keys.unique('WIDGET_KEY', hashWidgetKey(key));
export const newWidgetKey = () => `wk_${randomBytes(32).toString('base64url')}`;
export const WIDGET_KEY_PATTERN = /^wk_[A-Za-z0-9_-]{43}$/;

export const POSITIONS = ['left', 'right'] as const;
export interface Theme {
  primaryColor: string;
  position: (typeof POSITIONS)[number];
  title: string;
}
export const DEFAULT_THEME: Theme = { primaryColor: '#2563eb', position: 'right', title: 'Chat with us' };

/**
 * What anonymous visitors may spend of the tenant's allowance through this widget (null: no cap):
 * tokens per UTC day for the widget, tokens per UTC day per visitor (each session and each source
 * address counted alone), agent answers per session.
 */
export interface WidgetLimits {
  dailyTokens: number | null;
  visitorTokens: number | null;
  sessionTurns: number | null;
}
export const NO_LIMITS: WidgetLimits = { dailyTokens: null, visitorTokens: null, sessionTurns: null };

export interface WidgetRecord {
  id: string;
  tenantId: string;
  agentId: string;
  name: string;
  allowedOrigins: string[];
  theme: Theme;
  /** Absent on widgets made before caps existed: no cap. */
  limits?: WidgetLimits;
  isActive: boolean;
  widgetKey: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * What the lookup item holds: enough for a session to refuse a wrong origin before reading more, and
 * the theme its answer carries to the widget. Lookups written before the theme was copied lack it.
 */
export interface WidgetLookup {
  tenantId: string;
  widgetId: string;
  agentId: string;
  allowedOrigins: string[];
  isActive: boolean;
  theme?: Theme;
}

export const widgetItem = (w: WidgetRecord) => ({
  ...widgetKey(w.tenantId, w.id),
  ...keys.newestFirst(agentWidgets(w.tenantId, w.agentId), w.createdAt, w.id),
  ...w,
});
export const lookupOf = (w: WidgetRecord): WidgetLookup => ({
  tenantId: w.tenantId,
  widgetId: w.id,
  agentId: w.agentId,
  allowedOrigins: w.allowedOrigins,
  isActive: w.isActive,
  theme: w.theme,
});

export const toWidget = (w: WidgetRecord) => ({
  id: w.id,
  agentId: w.agentId,
  name: w.name,
  allowedOrigins: w.allowedOrigins,
  theme: w.theme,
  limits: w.limits ?? NO_LIMITS,
  isActive: w.isActive,
  widgetKey: w.widgetKey,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

/**
 * An origin as a browser sends it in `Origin`: lower-case scheme and host, the default port dropped,
 * no trailing slash (the URL parser's own `origin`). Stored so, and a request's header compared so.
 * A value that is more than an origin (a path, a query, credentials) stays as it was, so it matches
 * no allowed origin: the parser's `origin` would drop the path and let it through.
 */
export function normalOrigin(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return value;
  }
  return beyondOrigin(u, value) ? value : u.origin;
}

const beyondOrigin = (u: URL, value: string) =>
  u.pathname !== '/' || !!u.search || !!u.hash || !!u.username || !!u.password || /[?#]/.test(value);

/** https origins only; http only for localhost (a developer's page); no path, query or credentials. */
export function originProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'Not an origin';
  }
  if (beyondOrigin(u, value)) return 'An origin is scheme://host[:port] with no path';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '127.0.0.1')) return null;
  return 'Only https origins (http only for localhost)';
}
