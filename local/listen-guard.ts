import { isIP } from 'node:net';

/** Loopback: `localhost`, 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h.startsWith('::ffff:127.');
  return false;
}

/**
 * Why the local server may not listen on `host`, or null. Its `/_local/*` stand-ins show reset codes,
 * signed webhooks and subscription controls, so beyond loopback it needs LOCAL_ALLOW_REMOTE=1.
 */
export function listenRefusal(host: string, env: Record<string, string | undefined> = process.env): string | null {
  if (isLoopback(host) || env.LOCAL_ALLOW_REMOTE === '1') return null;
  return (
    `HOST=${host} would expose the local stand-ins (/_local/*: e-mailed reset codes, signed webhooks, ` +
    'subscription controls) to the network. Listen on 127.0.0.1, or set LOCAL_ALLOW_REMOTE=1 to do it anyway.'
  );
}
