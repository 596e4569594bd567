import { outboundUrl, pinTarget, TargetRefused, type PinnedTarget } from '#shared/http/pinned-request.ts';
import { targetNotAllowed } from './errors.ts';

const RESOLVE_MS = 2000;

/** The answer's words for each form refusal (the shared guard's are the HTTP tool's). */
const FORM_REASONS: Record<string, string> = {
  'The url is not valid': 'not a URL',
  'Only https URLs are allowed': 'only https URLs are allowed',
  'Credentials in the url are not allowed': 'credentials in the URL are not allowed',
};

/** The URL's form: https (plain http only to loopback under the local run's switch), no credentials. */
function parse(raw: string): URL {
  try {
    return outboundUrl(raw);
  } catch (err) {
    throw targetNotAllowed(FORM_REASONS[(err as Error).message] ?? (err as Error).message);
  }
}

/**
 * Where a delivery may connect, as the HTTP tool decides it: every address the host resolves to is
 * public (loopback only under the local run's switch), and the connection is pinned to one of them,
 * so a DNS answer cannot change between the check and the request.
 */
export async function resolveTarget(raw: string): Promise<PinnedTarget> {
  try {
    return await pinTarget(parse(raw));
  } catch (err) {
    if (err instanceof TargetRefused && err.message === 'Only https URLs are allowed')
      throw targetNotAllowed('only https URLs are allowed');
    throw err;
  }
}

/**
 * A subscription's URL when it is saved: its form, and the host's addresses when it resolves now (a
 * name that does not resolve yet is kept; every delivery checks again before it connects).
 */
export async function checkTarget(raw: string): Promise<string> {
  const url = parse(raw);
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), RESOLVE_MS);
  });
  try {
    const out = await Promise.race([resolveTarget(raw).then(() => 'ok' as const), slow]);
    if (out === 'slow') return url.toString();
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (targetNotAllowed.is(err)) throw err;
    if (/non-public address/.test(message)) throw targetNotAllowed('it resolves to a private or reserved address');
  } finally {
    clearTimeout(timer);
  }
  return url.toString();
}
