import { formatMoney } from '#areas/billing/money.ts';
import { notFound } from '#shared/http/errors.ts';
import { reply, type RawReply } from '#shared/http/responses.ts';
import { getSession, renewSubscription, settleSession, webhookLog } from './payment-provider.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The hosted checkout of the local payment providers: the amount and two buttons. Each button
 * posts to the stand-in, which sends the provider's signed webhook to the API, then shows the answer.
 */
export async function checkoutPage(sessionId: string): Promise<RawReply> {
  const s = await getSession(sessionId);
  if (!s) throw notFound('Checkout session');
  const provider = s.provider === 1 ? 'Payment provider A' : 'Payment provider B';
  const body = `<main>
<h1>${provider} checkout (local stand-in)</h1>
<p id="description">${escapeHtml(s.description)}</p>
<p>Amount due now: <strong id="amount">${escapeHtml(formatMoney(s.amountMinor, s.currency))}</strong></p>
<p>Status: <span id="state">${escapeHtml(s.state)}</span></p>
<button id="pay" type="button">Pay</button> <button id="decline" type="button">Decline</button>
<pre id="result"></pre>
</main>
<script>
for (const action of ['pay', 'decline']) {
  document.getElementById(action).addEventListener('click', async () => {
    const res = await fetch(location.pathname + '/' + action, { method: 'POST' });
    const out = await res.json();
    document.getElementById('state').textContent = res.ok ? (action === 'pay' ? 'paid' : 'declined') : 'error';
    document.getElementById('result').textContent = JSON.stringify(out, null, 2);
  });
}
</script>`;
  return reply.raw(
    'text/html; charset=utf-8',
    `<!doctype html><html><head><meta charset="utf-8"><title>Checkout</title></head><body>${body}</body></html>`,
    {
      headers: { 'cache-control': 'no-store' },
    },
  );
}

export const pay = (sessionId: string) => settleSession(sessionId, 'pay');
export const decline = (sessionId: string) => settleSession(sessionId, 'decline');
export const renew = (subscriptionId: string, succeed: boolean) => renewSubscription(subscriptionId, succeed);
export { webhookLog };
