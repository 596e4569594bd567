/**
 * The safe Markdown subset answers are shown in: paragraphs, line breaks, **bold**, bulleted and
 * numbered lists, [links](https://...) and bare URLs. Every piece of text is a text node and every
 * element is made here, so an answer can carry no markup of its own; links go to http(s) or mailto
 * only, in a new tab without access to this page.
 */
const INLINE = /\*\*([^*\n]+)\*\*|\[([^\]\n]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"])/g;
const BULLET = /^\s*[-*\u2022]\s+(.*)$/;
const NUMBERED = /^\s*\d{1,3}[.)]\s+(.*)$/;

function safeHref(value: string): string | null {
  try {
    const url = new URL(value);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

function link(doc: Document, label: string, href: string): HTMLElement {
  const a = doc.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = label;
  return a;
}

function inline(doc: Document, text: string, into: Node) {
  let at = 0;
  for (const m of text.matchAll(INLINE)) {
    const index = m.index ?? 0;
    if (index > at) into.appendChild(doc.createTextNode(text.slice(at, index)));
    const [whole, bold, label, target, bare] = m;
    if (bold !== undefined) {
      const b = doc.createElement('strong');
      b.textContent = bold;
      into.appendChild(b);
    } else if (label !== undefined && target !== undefined) {
      const href = safeHref(target);
      into.appendChild(href ? link(doc, label, href) : doc.createTextNode(label));
    } else if (bare !== undefined) {
      const href = safeHref(bare);
      into.appendChild(href ? link(doc, bare, href) : doc.createTextNode(bare));
    } else {
      into.appendChild(doc.createTextNode(whole));
    }
    at = index + whole.length;
  }
  if (at < text.length) into.appendChild(doc.createTextNode(text.slice(at)));
}

export function renderMarkdown(doc: Document, text: string): DocumentFragment {
  const out = doc.createDocumentFragment();
  let paragraph: HTMLElement | null = null;
  let list: HTMLElement | null = null;
  for (const line of text.split(/\r?\n/)) {
    const item = BULLET.exec(line) ?? NUMBERED.exec(line);
    if (item) {
      const tag = BULLET.test(line) ? 'UL' : 'OL';
      if (!list || list.tagName !== tag) list = out.appendChild(doc.createElement(tag.toLowerCase()));
      paragraph = null;
      inline(doc, item[1] ?? '', list.appendChild(doc.createElement('li')));
    } else if (!line.trim()) {
      paragraph = null;
      list = null;
    } else {
      list = null;
      if (paragraph) paragraph.appendChild(doc.createElement('br'));
      else paragraph = out.appendChild(doc.createElement('p'));
      inline(doc, line, paragraph);
    }
  }
  return out;
}
