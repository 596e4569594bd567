import type { Theme } from './api.ts';

/** White or near-black text, whichever reads better on the site owner's colour (WCAG luminance). */
export function textOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const channel = (v: number) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#fff' : '#111';
}

/**
 * Inside the widget's shadow root, so the host page's CSS neither styles nor is styled by it. Under
 * 480 px the panel covers the screen; its height then follows the visual viewport (the on-screen
 * keyboard) through --vh, set from script.
 */
export const css = (t: Theme) => `
:host{all:initial}
*{box-sizing:border-box}
.root{position:fixed;bottom:20px;${t.position}:20px;z-index:2147483000;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;--c:${t.primaryColor};--on:${textOn(t.primaryColor)}}
button{font:inherit;cursor:pointer}
.bubble{width:56px;height:56px;border-radius:50%;border:0;background:var(--c);color:var(--on);display:grid;place-items:center;box-shadow:0 4px 16px rgba(0,0,0,.25);position:relative}
.bubble svg{width:28px;height:28px}
.bubble:focus-visible,.panel button:focus-visible,.panel a:focus-visible{outline:3px solid #111;outline-offset:2px}
.dot{position:absolute;top:4px;right:4px;width:12px;height:12px;border-radius:50%;background:#d1242f;border:2px solid #fff;display:none}
.unread .dot{display:block}
.panel{display:none;flex-direction:column;position:absolute;bottom:70px;${t.position}:0;width:370px;height:min(580px,calc(100vh - 110px));background:#fff;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.25);overflow:hidden}
.open .panel{display:flex}
.head{display:flex;flex-wrap:wrap;align-items:center;gap:6px 8px;padding:10px 10px 10px 16px;background:var(--c);color:var(--on)}
.head h2{flex:1 1 0;min-width:0;margin:0;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tools{flex-basis:100%;display:flex;gap:8px}
.head button{background:transparent;color:inherit;border:1px solid currentColor;border-radius:6px;padding:2px 8px;font-size:13px}
.head .x{border:0;padding:4px;display:grid;place-items:center}
.head .x svg{width:20px;height:20px}
.log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px;overscroll-behavior:contain}
.msg{max-width:85%;padding:8px 12px;border-radius:12px;overflow-wrap:anywhere;word-break:break-word;min-width:0}
.msg p{margin:0 0 6px}.msg p:last-child{margin-bottom:0}
.msg ul,.msg ol{margin:4px 0;padding-left:20px}
.msg a{color:inherit;text-decoration:underline}
.visitor{align-self:flex-end;background:var(--c);color:var(--on);white-space:pre-wrap}
.agent{align-self:flex-start;background:#f1f3f5}
.staff{align-self:flex-start;background:#fff;border:1px solid #c9d1d9;border-left:4px solid var(--c)}
.who{display:block;font-size:12px;font-weight:600;color:#444;margin-bottom:2px}
.unsent{opacity:.75;border:1px dashed #888}
.notice{align-self:center;text-align:center;font-size:13px;color:#444;max-width:90%}
.notice button{margin-left:6px;background:var(--c);color:var(--on);border:0;border-radius:6px;padding:3px 10px}
.msg .sources{margin:6px 0 0;padding:6px 0 0;border-top:1px solid #d0d7de;font-size:12px;color:#444;list-style:none;padding-left:0}
.typing span{display:inline-block;width:6px;height:6px;margin:0 2px;border-radius:50%;background:#57606a;animation:b 1s infinite}
.typing span:nth-child(2){animation-delay:.15s}.typing span:nth-child(3){animation-delay:.3s}
@keyframes b{50%{opacity:.3}}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.rate{align-self:center;text-align:center}
.rate button{border:0;background:transparent;color:#9a6700;padding:2px}
.rate svg{width:26px;height:26px}
form{display:flex;border-top:1px solid #d0d7de}
input{flex:1;min-width:0;border:0;padding:12px 14px;font:inherit;font-size:16px;color:#1f2328;background:#fff}
input:focus{outline:2px solid var(--c);outline-offset:-2px}
.send{border:0;margin:6px;border-radius:8px;padding:0 14px;background:var(--c);color:var(--on)}
@media (max-width:480px){
.open{inset:0}
.open .bubble{display:none}
.panel{position:fixed;left:0;right:0;top:var(--top,0px);bottom:auto;width:100%;height:var(--vh,100%);border-radius:0}
}
`;
