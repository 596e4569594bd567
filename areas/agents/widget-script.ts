import { createHash } from 'node:crypto';
import { reply } from '#shared/http/responses.ts';

/**
 * The embeddable widget (GET /api/ai/widget.js): plain ES2017 in one string, no framework, no
 * request anywhere but the API it was loaded from (its own script src). It talks to the
 * conversations area's widget-session routes (spec "AI conversations"): start a session with the
 * widgetKey, send messages (streamed as server-sent events where the browser can read a stream),
 * poll for human replies, escalate, and rate 1-5 when the chat ends. Text is always set with
 * textContent, never as HTML, so an answer cannot inject markup into the host page.
 */
const WIDGET_SCRIPT = String.raw`(function () {
  'use strict';
  var me = document.currentScript;
  if (!me) return;
  var key = me.getAttribute('data-widget-key');
  if (!key) return;
  var base = (me.getAttribute('data-api-base') || new URL(me.src).origin).replace(/\/$/, '');
  var W = base + '/api/conversations/widget';
  var session = null, lastId = null, poll = null, seen = {};
  function el(tag, css, text) {
    var e = document.createElement(tag);
    if (css) e.style.cssText = css;
    if (text != null) e.textContent = text;
    return e;
  }
  function call(method, path, body, accept, key) {
    var h = { 'Content-Type': 'application/json', Accept: accept || 'application/json' };
    if (session) h['X-Widget-Session'] = session.sessionToken;
    if (key) h['Idempotency-Key'] = key;
    return fetch(W + path, { method: method, headers: h, body: body ? JSON.stringify(body) : undefined });
  }
  function json(res) {
    return res.json().then(function (j) {
      if (!res.ok) throw new Error((j && j.error && j.error.message) || 'Request failed');
      return j && 'result' in j ? j.result : j;
    });
  }
  var color = '#2563eb', side = 'right', title = 'Chat';
  var host = el('div', 'position:fixed;bottom:20px;' + side + ':20px;z-index:2147483000;font:14px/1.4 system-ui,sans-serif');
  var bubble = el('button', 'width:56px;height:56px;border-radius:50%;border:0;cursor:pointer;color:#fff;font-size:24px;background:' + color, '\u{1F4AC}');
  bubble.setAttribute('aria-label', 'Open chat');
  var panel = el('div', 'display:none;flex-direction:column;width:340px;height:480px;background:#fff;border-radius:12px;box-shadow:0 8px 30px rgba(0,0,0,.2);overflow:hidden;margin-bottom:10px');
  var head = el('div', 'padding:12px;color:#fff;display:flex;justify-content:space-between;align-items:center;background:' + color);
  var headTitle = el('strong', '', title);
  var human = el('button', 'background:transparent;border:1px solid #fff;color:#fff;border-radius:6px;cursor:pointer;font-size:12px;padding:3px 6px', 'Talk to a person');
  var end = el('button', 'background:transparent;border:0;color:#fff;cursor:pointer;font-size:12px', 'End chat');
  var log = el('div', 'flex:1;overflow-y:auto;padding:10px;display:flex;flex-direction:column;gap:8px');
  var form = el('form', 'display:flex;border-top:1px solid #eee');
  var input = el('input', 'flex:1;border:0;padding:12px;outline:none');
  input.setAttribute('maxlength', '4000');
  input.setAttribute('placeholder', 'Type a message');
  var send = el('button', 'border:0;background:transparent;padding:0 12px;cursor:pointer;color:' + color, 'Send');
  head.appendChild(headTitle);
  var tools = el('div', 'display:flex;gap:6px');
  tools.appendChild(human);
  tools.appendChild(end);
  head.appendChild(tools);
  form.appendChild(input);
  form.appendChild(send);
  panel.appendChild(head);
  panel.appendChild(log);
  panel.appendChild(form);
  host.appendChild(panel);
  host.appendChild(bubble);
  function add(who, text) {
    var mine = who === 'visitor';
    var b = el('div', 'max-width:80%;padding:8px 10px;border-radius:10px;white-space:pre-wrap;' + (mine ? 'align-self:flex-end;color:#fff;background:' + color : 'align-self:flex-start;background:#f1f3f5'), text);
    log.appendChild(b);
    log.scrollTop = log.scrollHeight;
    return b;
  }
  function cite(bubbleEl, citations) {
    if (!citations || !citations.length) return;
    var list = el('div', 'margin-top:6px;font-size:12px;color:#555');
    citations.forEach(function (c, i) {
      list.appendChild(el('div', '', '[' + (i + 1) + '] ' + (c.documentTitle || c.title || c.source || 'Source')));
    });
    bubbleEl.appendChild(list);
  }
  function textOf(m) { return typeof m === 'string' ? m : (m && (m.text || m.content)) || ''; }
  // A browser may report a POSIX locale (en-US@posix): only a language tag is sent, or none.
  function locale() {
    try { return Intl.getCanonicalLocales((navigator.language || '').split(/[@.]/)[0])[0] || null; } catch (e) { return null; }
  }
  function start() {
    if (session) return Promise.resolve(session);
    return call('POST', '/sessions', { widgetKey: key, visitor: null, locale: locale() })
      .then(json)
      .then(function (s) {
        session = s;
        if (s.agent && s.agent.name) headTitle.textContent = s.agent.name;
        if (s.agent && s.agent.welcomeMessage) add('agent', s.agent.welcomeMessage);
        poll = setInterval(fetchReplies, 5000);
        return s;
      });
  }
  function fetchReplies() {
    if (!session) return;
    call('GET', '/messages' + (lastId ? '?after=' + encodeURIComponent(lastId) : ''))
      .then(json)
      .then(function (list) {
        (list || []).forEach(function (m) {
          if (m.id) lastId = m.id;
          if (m.id && seen[m.id]) return;
          if (m.id) seen[m.id] = 1;
          if (m.role === 'human' || m.sender === 'human' || m.author === 'human') add('agent', textOf(m));
        });
      })
      .catch(function () {});
  }
  function finish(b, r) {
    var msg = r.message;
    if (msg && msg.id) { seen[msg.id] = 1; lastId = msg.id; }
    if (textOf(msg)) b.textContent = textOf(msg);
    cite(b, r.citations);
    if (r.escalated) add('agent', 'A person will join the conversation.');
  }
  function streamed(res, b) {
    var reader = res.body.getReader(), dec = new TextDecoder(), buf = '', text = '';
    function pump() {
      return reader.read().then(function (step) {
        if (step.done) return;
        buf += dec.decode(step.value, { stream: true });
        var events = buf.split('\n\n');
        buf = events.pop();
        events.forEach(function (ev) {
          ev.split('\n').forEach(function (line) {
            if (line.indexOf('data:') !== 0) return;
            var data = line.slice(5).trim();
            if (!data || data === '[DONE]') return;
            try { var d = JSON.parse(data); } catch (e) { return; }
            if (typeof d.delta === 'string') { text += d.delta; b.textContent = text; }
            if (d.message || d.citations) finish(b, d);
          });
        });
        log.scrollTop = log.scrollHeight;
        return pump();
      });
    }
    return pump();
  }
  function say(text) {
    add('visitor', text);
    var b = add('agent', '\u2026');
    var canStream = typeof ReadableStream !== 'undefined' && typeof TextDecoder !== 'undefined';
    // One key per message: a send retried after a dropped connection or a 503 is stored and answered once.
    var key = 'w' + Date.now().toString(36) + Math.random().toString(36).slice(2, 10);
    function post() { return call('POST', '/messages', { text: text }, canStream ? 'text/event-stream' : 'application/json', key); }
    function later() { return new Promise(function (r) { setTimeout(r, 1500); }).then(post); }
    return start()
      .then(function () { return post().catch(later); })
      .then(function (res) { return res.status === 503 ? later() : res; })
      .then(function (res) {
        var type = res.headers.get('content-type') || '';
        if (res.ok && res.body && type.indexOf('text/event-stream') === 0) return streamed(res, b);
        return json(res).then(function (r) { finish(b, r); });
      })
      .catch(function (e) { b.textContent = e.message || 'Something went wrong'; });
  }
  function rate() {
    var box = el('div', 'align-self:center;text-align:center');
    box.appendChild(el('div', 'margin-bottom:4px', 'How was this chat?'));
    [1, 2, 3, 4, 5].forEach(function (n) {
      var s = el('button', 'border:0;background:transparent;cursor:pointer;font-size:20px', '\u2605');
      s.setAttribute('aria-label', n + ' of 5');
      s.onclick = function () {
        call('POST', '/feedback', { csat: n, comment: null }).then(json).catch(function () {});
        box.textContent = 'Thank you!';
        if (poll) clearInterval(poll);
        session = null;
      };
      box.appendChild(s);
    });
    log.appendChild(box);
    log.scrollTop = log.scrollHeight;
  }
  bubble.onclick = function () {
    var open = panel.style.display === 'flex';
    panel.style.display = open ? 'none' : 'flex';
    if (!open) start().catch(function (e) { add('agent', e.message); });
  };
  human.onclick = function () {
    start()
      .then(function () { return call('POST', '/escalate', { reason: null }).then(json); })
      .then(function () { add('agent', 'A person will join the conversation.'); })
      .catch(function (e) { add('agent', e.message); });
  };
  end.onclick = function () { if (session) rate(); };
  form.onsubmit = function (e) {
    e.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    input.value = '';
    say(text);
  };
  function mount() { document.body.appendChild(host); }
  if (document.body) mount(); else document.addEventListener('DOMContentLoaded', mount);
})();
`;

const ETAG = `"${createHash('sha256').update(WIDGET_SCRIPT).digest('base64url').slice(0, 16)}"`;

/** Cached by browsers and CDNs for an hour; the ETag lets them revalidate cheaply after. */
export const widgetScript = () =>
  reply.raw('text/javascript; charset=utf-8', WIDGET_SCRIPT, {
    headers: {
      'cache-control': 'public, max-age=3600',
      etag: ETAG,
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    },
  });
