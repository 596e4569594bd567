import { Refused, Unreachable, widgetApi, type Theme } from './api.ts';
import { savedSession, type SavedSession } from './saved-session.ts';
import { createView } from './view.ts';

/**
 * The embeddable chat widget (served as /api/ai/widget.js, bundled by esbuild from this folder). It
 * reads its `data-*` attributes, draws the bubble, and calls nothing until the bubble is opened or a
 * conversation from an earlier page is resumed. It talks only to the API it was loaded from (or
 * `data-api-base`): the conversations area's widget-session routes.
 */
const DEFAULT_THEME: Theme = { primaryColor: '#2563eb', position: 'right', title: 'Chat with us' };
const POLL_MS = 4000;
const RETRY_MS = 1500;
const HAND_OFF = 'A person will join the conversation.';
const UNREACHABLE = "We couldn't reach the chat. Your message is kept; try again in a moment.";

/** The theme from the embed or the session answer, each field checked before it reaches CSS. */
function themeOf(source: Partial<Record<keyof Theme, string | null | undefined>>, base: Theme): Theme {
  const color = source.primaryColor ?? '';
  const title = (source.title ?? '').trim();
  return {
    primaryColor: /^#[0-9a-fA-F]{6}$/.test(color) ? color : base.primaryColor,
    position: source.position === 'left' || source.position === 'right' ? source.position : base.position,
    title: title ? title.slice(0, 100) : base.title,
  };
}

// A browser may report a POSIX locale (en-US@posix): only a language tag is sent, or none.
function locale(): string | null {
  try {
    return Intl.getCanonicalLocales((navigator.language || '').split(/[@.]/)[0] ?? '')[0] ?? null;
  } catch {
    return null;
  }
}

const newKey = () => `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
// A cap the site owner set is an answer to show as it is, not a reason to try again.
const unreachable = (e: unknown) =>
  e instanceof Unreachable || (e instanceof Refused && e.status === 429 && e.code !== 'WIDGET_LIMIT_REACHED');
const sessionGone = (e: unknown) =>
  e instanceof Refused && (e.status === 401 || e.code === 'CONVERSATION_CLOSED' || e.code === 'FEEDBACK_ALREADY_GIVEN');

function boot(me: HTMLScriptElement) {
  const widgetKey = me.getAttribute('data-widget-key');
  if (!widgetKey) return;
  const base = (me.getAttribute('data-api-base') || new URL(me.src).origin).replace(/\/$/, '');
  const api = widgetApi(base);
  const store = savedSession(widgetKey);
  let session: SavedSession | null = store.read();
  const embedded = themeOf(
    {
      primaryColor: me.getAttribute('data-primary-color'),
      position: me.getAttribute('data-position'),
      title: me.getAttribute('data-title'),
    },
    DEFAULT_THEME,
  );
  const seen = new Set<string>();
  let starting: Promise<SavedSession> | null = null;
  let historyLoaded = false;
  let ended = false;
  let rating = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const view = createView(session?.theme ?? embedded, {
    toggle,
    send: (text) => void say(text),
    escalate: () => void escalate(),
    end,
  });

  const save = () => session && store.write(session);
  function drop() {
    session = null;
    store.clear();
    clearTimeout(timer);
    seen.clear();
    historyLoaded = false;
  }

  function schedule() {
    clearTimeout(timer);
    if (session) timer = setTimeout(() => void poll(), POLL_MS);
  }

  /** The whole conversation when resumed on a new page; afterwards only what a person wrote since. */
  async function poll() {
    const s = session;
    if (!s) return;
    try {
      const list = await api.messages(s.token, historyLoaded ? s.lastId : null);
      if (s !== session) return;
      if (!historyLoaded && s.welcome) view.message({ role: 'agent', text: s.welcome, citations: [] });
      for (const m of list) {
        s.lastId = m.id;
        if (seen.has(m.id)) continue;
        seen.add(m.id);
        // Live, the visitor's own lines and the agent's answers arrive through the send itself, and
        // a hand-off is told by its notice; only what a person writes comes through here.
        if (historyLoaded && m.role !== 'human') continue;
        view.message(m);
        if (m.role === 'human') {
          s.escalated = true;
          if (!view.isOpen()) view.markUnread();
        }
      }
      historyLoaded = true;
      save();
    } catch (e) {
      if (sessionGone(e)) drop();
    }
    schedule();
  }

  function ensureSession(before?: Node | null): Promise<SavedSession> {
    if (session) return Promise.resolve(session);
    starting ??= api
      .start(widgetKey!, locale())
      .then((s) => {
        const theme = themeOf(s.theme ?? {}, embedded);
        view.applyTheme(theme);
        session = {
          token: s.sessionToken,
          expiresAt: s.expiresAt,
          lastId: null,
          escalated: false,
          open: view.isOpen(),
          theme,
          welcome: s.agent.welcomeMessage,
        };
        // A new conversation has no history to fetch: the poll asks only for what comes after.
        historyLoaded = true;
        if (s.agent.welcomeMessage)
          view.message({ role: 'agent', text: s.agent.welcomeMessage, citations: [] }, undefined, before);
        save();
        schedule();
        return session;
      })
      .finally(() => {
        starting = null;
      });
    return starting;
  }

  /** Once per conversation, whoever asked: the visitor, the model, or staff taking over. */
  function handOff() {
    if (!session || session.escalated) return;
    session.escalated = true;
    save();
    view.notice(HAND_OFF);
  }

  async function attempt<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      if (!unreachable(e)) throw e;
      await pause(RETRY_MS);
      return run();
    }
  }

  /** With the session, or with a new one when the old has expired or was closed by staff. */
  async function withSession<T>(before: Node | null, run: (token: string) => Promise<T>): Promise<T> {
    const s = await attempt(() => ensureSession(before));
    try {
      return await run(s.token);
    } catch (e) {
      if (!sessionGone(e)) throw e;
      drop();
      const fresh = await attempt(() => ensureSession(before));
      return run(fresh.token);
    }
  }

  async function say(text: string, mine?: HTMLElement, key = newKey()) {
    if (!mine && ended) {
      view.clear();
      ended = false;
    }
    const line = mine ?? view.visitor(text);
    line.classList.remove('unsent');
    const typing = session?.escalated ? null : view.typing();
    const answerEl = typing ?? document.createElement('div');
    try {
      const answer = await withSession(line, (token) =>
        attempt(() => api.send(token, text, key, (soFar) => view.streaming(answerEl, soFar))),
      );
      if (answer.message) {
        seen.add(answer.message.id);
        view.message(answer.message, answerEl.isConnected ? answerEl : undefined);
      } else answerEl.remove();
      if (answer.escalated) handOff();
    } catch (e) {
      answerEl.remove();
      if (unreachable(e)) {
        line.classList.add('unsent');
        view.notice(UNREACHABLE, () => void say(text, line, key));
      } else view.notice(e instanceof Refused ? e.message : 'Something went wrong.');
    }
  }

  async function escalate() {
    try {
      const s = await withSession(null, async (token) => {
        await attempt(() => api.escalate(token));
        return session;
      });
      if (s) handOff();
    } catch (e) {
      if (unreachable(e)) view.notice(UNREACHABLE, () => void escalate());
      else view.notice(e instanceof Refused ? e.message : 'Something went wrong.');
    }
  }

  function end() {
    const s = session;
    if (!s || rating) return;
    rating = true;
    view.rating((csat) => {
      rating = false;
      ended = true;
      drop();
      // The rating closes the conversation; a lost rating must not keep the visitor in it.
      void attempt(() => api.feedback(s.token, csat)).catch(() => undefined);
    });
  }

  function toggle(open: boolean) {
    view.setOpen(open);
    if (session) {
      session.open = open;
      save();
    }
    if (!open || session || ended) return;
    ensureSession().catch(function retry(e: unknown) {
      if (unreachable(e)) view.notice(UNREACHABLE, () => void ensureSession().catch(retry));
      else view.notice(e instanceof Refused ? e.message : 'Something went wrong.');
    });
  }

  function mount() {
    document.body.appendChild(view.host);
    if (!session) return;
    // A conversation from an earlier page: its messages, its replies, and the panel as it was left.
    if (session.open) view.setOpen(true, false);
    void poll();
  }
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && session && historyLoaded) void poll();
  });
}

const me = document.currentScript;
if (me instanceof HTMLScriptElement) boot(me);
