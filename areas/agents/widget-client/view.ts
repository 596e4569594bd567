import type { Citation, Theme, VisitorMessage } from './api.ts';
import { icon } from './icons.ts';
import { renderMarkdown } from './markdown.ts';
import { css } from './styles.ts';

type Attrs = Record<string, string>;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string | null,
  attrs: Attrs = {},
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export interface ViewActions {
  toggle(open: boolean): void;
  send(text: string): void;
  escalate(): void;
  end(): void;
}

/** The widget's DOM, in a shadow root of its own; every text goes in as text, never as markup. */
export function createView(initial: Theme, actions: ViewActions) {
  const host = el('div', '', null, { 'data-chat-widget': '' });
  const shadow = host.attachShadow({ mode: 'open' });
  const style = el('style');
  const root = el('div', 'root');
  const bubble = el('button', 'bubble', null, {
    type: 'button',
    'aria-label': 'Open chat',
    'aria-expanded': 'false',
    'aria-controls': 'chat-panel',
  });
  bubble.append(icon(document, 'chat'), el('span', 'dot', null, { 'aria-hidden': 'true' }));
  const panel = el('div', 'panel', null, { id: 'chat-panel', role: 'dialog', 'aria-labelledby': 'chat-title' });
  const head = el('div', 'head');
  const title = el('h2', '', initial.title, { id: 'chat-title' });
  const human = el('button', '', 'Talk to a person', { type: 'button' });
  const end = el('button', '', 'End chat', { type: 'button' });
  const close = el('button', 'x', null, { type: 'button', 'aria-label': 'Close chat' });
  close.appendChild(icon(document, 'close'));
  const tools = el('div', 'tools');
  tools.append(human, end);
  head.append(title, close, tools);
  const log = el('div', 'log', null, { role: 'log', 'aria-live': 'polite', 'aria-label': 'Messages', tabindex: '0' });
  const form = el('form');
  const label = el('label', 'sr', 'Message', { for: 'chat-input' });
  const input = el('input', '', null, {
    id: 'chat-input',
    maxlength: '4000',
    placeholder: 'Type a message',
    autocomplete: 'off',
  });
  const sendButton = el('button', 'send', 'Send', { type: 'submit' });
  form.append(label, input, sendButton);
  panel.append(head, log, form);
  root.append(panel, bubble);
  shadow.append(style, root);

  const scroll = () => {
    log.scrollTop = log.scrollHeight;
  };
  const add = <T extends HTMLElement>(node: T, before?: Node | null): T => {
    if (before && before.parentNode === log) log.insertBefore(node, before);
    else log.appendChild(node);
    scroll();
    return node;
  };

  function sources(citations: Citation[]) {
    const titles = [...new Map(citations.map((c) => [c.documentId, c.documentTitle])).values()];
    if (!titles.length) return null;
    const list = el('ul', 'sources', null, { 'aria-label': 'Sources' });
    titles.forEach((t, i) => {
      list.appendChild(el('li', '', `[${i + 1}] ${t}`));
    });
    return list;
  }

  function applyTheme(t: Theme) {
    style.textContent = css(t);
    title.textContent = t.title;
  }
  applyTheme(initial);

  // The on-screen keyboard shrinks the visual viewport, not the layout one: the full-screen panel follows it.
  const phone = window.matchMedia('(max-width: 480px)');
  const vv = window.visualViewport;
  const follow = () => {
    if (!vv) return;
    root.style.setProperty('--vh', `${Math.round(vv.height)}px`);
    root.style.setProperty('--top', `${Math.round(vv.offsetTop)}px`);
    if (phone.matches && root.classList.contains('open')) scroll();
  };
  vv?.addEventListener('resize', follow);
  vv?.addEventListener('scroll', follow);
  follow();

  bubble.addEventListener('click', () => actions.toggle(!root.classList.contains('open')));
  close.addEventListener('click', () => actions.toggle(false));
  human.addEventListener('click', () => actions.escalate());
  end.addEventListener('click', () => actions.end());
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      actions.toggle(false);
    }
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    actions.send(text);
  });

  return {
    host,
    applyTheme,
    isOpen: () => root.classList.contains('open'),
    setOpen(open: boolean, focus = true) {
      root.classList.toggle('open', open);
      bubble.setAttribute('aria-expanded', String(open));
      if (open) {
        root.classList.remove('unread');
        follow();
        scroll();
        if (focus) input.focus();
      } else if (focus) bubble.focus();
    },
    markUnread: () => root.classList.add('unread'),
    clear: () => log.replaceChildren(),
    visitor: (text: string, before?: Node | null) => add(el('div', 'msg visitor', text), before),
    /** An answer or a person's reply: the safe Markdown subset, the author, the sources it carries. */
    message(
      m: Pick<VisitorMessage, 'role' | 'text' | 'citations' | 'authorName'>,
      into?: HTMLElement,
      before?: Node | null,
    ) {
      if (m.role === 'visitor') return this.visitor(m.text, before);
      if (m.role === 'system') return this.notice(m.text);
      const staff = m.role === 'human';
      const b = into ?? el('div', '');
      b.className = `msg ${staff ? 'staff' : 'agent'}`;
      b.replaceChildren();
      if (staff) b.appendChild(el('span', 'who', `${m.authorName || 'Support team'} (team)`));
      b.appendChild(renderMarkdown(document, m.text));
      const s = sources(m.citations);
      if (s) b.appendChild(s);
      if (!into) return add(b, before);
      scroll();
      return b;
    },
    /** Plain text while an answer streams in. */
    streaming(b: HTMLElement, text: string) {
      b.className = 'msg agent';
      b.textContent = text;
      scroll();
    },
    typing() {
      const t = el('div', 'msg agent typing');
      t.append(el('span'), el('span'), el('span'), el('span', 'sr', 'The assistant is typing'));
      return add(t);
    },
    notice(text: string, retry?: () => void) {
      const n = el('div', 'notice', text);
      if (retry) {
        const again = el('button', '', 'Retry', { type: 'button' });
        again.addEventListener('click', () => {
          n.remove();
          retry();
        });
        n.appendChild(again);
      }
      return add(n);
    },
    rating(onRate: (n: number) => void) {
      const box = el('div', 'rate', null, { role: 'group', 'aria-label': 'Rate this chat' });
      box.appendChild(el('div', '', 'How was this chat?'));
      for (let n = 1; n <= 5; n++) {
        const star = el('button', '', null, { type: 'button', 'aria-label': `${n} of 5` });
        star.appendChild(icon(document, 'star'));
        star.addEventListener('click', () => {
          box.replaceChildren(el('div', '', 'Thank you!'));
          onRate(n);
        });
        box.appendChild(star);
      }
      add(box);
      box.querySelector('button')?.focus();
    },
  };
}

export type View = ReturnType<typeof createView>;
