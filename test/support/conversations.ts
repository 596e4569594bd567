import { expect } from 'vitest';
import { AGENTS, newPrompt } from './agents.ts';
import { invoke, type InvokeOptions } from './invoke.ts';

export const WIDGET = '/api/conversations/widget';
export const ORIGIN = 'https://shop.example.com';

let ip = 0;
/** A fresh source address per widget request, so the shared 60-a-minute limit stays out of the way. */
export const widgetIp = () => `10.77.${(++ip >> 8) & 255}.${ip & 255}`;

/** A published agent with a widget allowed on ORIGIN: what a widget session needs. */
export async function publishedWidget(
  owner: string,
  agent: Record<string, unknown> = {},
): Promise<{ agentId: string; widgetId: string; widgetKey: string }> {
  const promptId = await newPrompt(owner);
  const created = await invoke('POST', AGENTS, {
    token: owner,
    body: { name: 'Support', promptId, welcomeMessage: 'Hi! How can I help?', ...agent },
  });
  expect(created).toAnswer(201);
  const agentId = created.json.result.id as string;
  const published = await invoke('POST', `${AGENTS}/${agentId}/publish`, { token: owner });
  expect(published).toAnswer(200);
  const widget = await invoke('POST', `${AGENTS}/${agentId}/widgets`, {
    token: owner,
    body: { name: 'Shop', allowedOrigins: [ORIGIN] },
  });
  expect(widget).toAnswer(201);
  return { agentId, widgetId: widget.json.result.id, widgetKey: widget.json.result.widgetKey };
}

export async function startSession(widgetKey: string, body: Record<string, unknown> = {}, origin = ORIGIN) {
  return invoke('POST', `${WIDGET}/sessions`, {
    body: { widgetKey, ...body },
    headers: { origin },
    ip: widgetIp(),
  });
}

/** A started session: the conversation id and the widget calls under its token. */
export async function session(widgetKey: string, body: Record<string, unknown> = {}) {
  const res = await startSession(widgetKey, body);
  expect(res).toAnswer(201);
  const token = res.json.result.sessionToken as string;
  const call = (method: string, path: string, opts: InvokeOptions = {}) =>
    invoke(method, `${WIDGET}${path}`, {
      ...opts,
      headers: { 'x-widget-session': token, ...opts.headers },
      ip: opts.ip ?? widgetIp(),
    });
  return {
    conversationId: res.json.result.conversationId as string,
    token,
    start: res.json.result,
    send: (text: string, headers: Record<string, string> = {}) =>
      call('POST', '/messages', { body: { text }, headers }),
    messages: (after?: string) => call('GET', `/messages${after ? `?after=${after}` : ''}`),
    escalate: (reason: string | null = null) => call('POST', '/escalate', { body: { reason } }),
    feedback: (csat: number, comment: string | null = null) => call('POST', '/feedback', { body: { csat, comment } }),
  };
}
