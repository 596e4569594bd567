import { createParser } from 'eventsource-parser';

/** What the widget reads of the conversations area's widget-session routes. */
export interface Theme {
  primaryColor: string;
  position: 'left' | 'right';
  title: string;
}
export interface Citation {
  documentId: string;
  documentTitle: string;
}
export interface VisitorMessage {
  id: string;
  role: 'visitor' | 'agent' | 'human' | 'system';
  text: string;
  citations: Citation[];
  authorName?: string | null;
}
export interface SessionAnswer {
  sessionToken: string;
  expiresAt: string;
  agent: { name: string; welcomeMessage: string | null };
  theme?: Theme;
}
export interface TurnAnswer {
  message: VisitorMessage | null;
  citations: Citation[];
  escalated: boolean;
}

/** The network or the server failed: what was sent may be sent again (same idempotency key). */
export class Unreachable extends Error {}

/** The server answered no with its own code (closed, expired session, limit). */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface CallOptions {
  token?: string | null;
  body?: unknown;
  stream?: boolean;
  idempotencyKey?: string;
}

export type WidgetApi = ReturnType<typeof widgetApi>;

export function widgetApi(base: string) {
  const root = `${base}/api/conversations/widget`;

  async function call(method: string, path: string, o: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: o.stream ? 'text/event-stream' : 'application/json',
    };
    if (o.token) headers['X-Widget-Session'] = o.token;
    if (o.idempotencyKey) headers['Idempotency-Key'] = o.idempotencyKey;
    let res: Response;
    try {
      res = await fetch(root + path, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
    } catch {
      throw new Unreachable('offline');
    }
    if (res.status >= 500) throw new Unreachable(`status ${res.status}`);
    if (!res.ok) {
      const j = await res.json().catch(() => null);
      const e = j?.error ?? {};
      throw new Refused(res.status, String(e.code ?? 'ERROR'), String(e.message ?? 'Request failed'));
    }
    return res;
  }
  const json = async <T>(res: Response): Promise<T> => {
    try {
      return (await res.json()).result as T;
    } catch {
      throw new Unreachable('unreadable answer');
    }
  };

  return {
    start: async (widgetKey: string, locale: string | null) =>
      json<SessionAnswer>(await call('POST', '/sessions', { body: { widgetKey, visitor: null, locale } })),
    messages: async (token: string, after: string | null) =>
      json<VisitorMessage[]>(
        await call('GET', `/messages${after ? `?after=${encodeURIComponent(after)}` : ''}`, { token }),
      ),
    escalate: async (token: string) =>
      json<unknown>(await call('POST', '/escalate', { token, body: { reason: null } })),
    feedback: async (token: string, csat: number) =>
      json<unknown>(await call('POST', '/feedback', { token, body: { csat, comment: null } })),
    /** A visitor message; `onDelta` sees the answer's text as it streams. */
    async send(token: string, text: string, key: string, onDelta: (soFar: string) => void): Promise<TurnAnswer> {
      const canStream = typeof ReadableStream !== 'undefined' && typeof TextDecoder !== 'undefined';
      const res = await call('POST', '/messages', { token, body: { text }, stream: canStream, idempotencyKey: key });
      const type = res.headers.get('content-type') ?? '';
      if (!res.body || !type.startsWith('text/event-stream')) return json<TurnAnswer>(res);
      return readStream(res.body, onDelta);
    },
  };
}

/**
 * `{"delta"}` events, then the stored answer, then `[DONE]`; an `error` event ends the turn. The
 * events are read by eventsource-parser, as the gateway reads a provider's stream: split anywhere
 * across chunks, CRLF line ends and comments included.
 */
async function readStream(body: ReadableStream<Uint8Array>, onDelta: (soFar: string) => void): Promise<TurnAnswer> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let answer: TurnAnswer | null = null;
  let refusal: Refused | null = null;
  const parser = createParser({
    onEvent: ({ data }) => {
      if (refusal || !data || data === '[DONE]') return;
      let d: { delta?: unknown; error?: { code?: string; message?: string } } & Partial<TurnAnswer>;
      try {
        d = JSON.parse(data);
      } catch {
        return;
      }
      if (d.error) {
        refusal = new Refused(200, d.error.code ?? 'ERROR', d.error.message ?? 'The assistant could not answer');
      } else if (typeof d.delta === 'string') {
        text += d.delta;
        onDelta(text);
      } else if ('escalated' in d) {
        answer = { message: d.message ?? null, citations: d.citations ?? [], escalated: !!d.escalated };
      }
    },
  });
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      throw new Unreachable('stream broken');
    }
    if (step.done) break;
    parser.feed(decoder.decode(step.value, { stream: true }));
    if (refusal) throw refusal;
  }
  parser.feed(`${decoder.decode()}\n\n`);
  if (refusal) throw refusal;
  // A stream that ended before the stored answer: the answer is stored, a resend with the same key gets it.
  if (!answer) throw new Unreachable('stream ended early');
  return answer;
}
