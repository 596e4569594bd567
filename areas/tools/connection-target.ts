import { isIP } from 'node:net';

/** Where a database tool connects, read from its connection string: a network host, never a file. */
export interface ConnectionTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string | undefined;
  /** pg's reading of sslmode: prefer, require, verify-ca and verify-full verify the certificate. */
  tls: 'off' | 'verified' | 'unverified';
}

export class ConnectionRefused extends Error {}

const SSL_MODES: Record<string, ConnectionTarget['tls']> = {
  disable: 'off',
  prefer: 'verified',
  require: 'verified',
  'verify-ca': 'verified',
  'verify-full': 'verified',
  'no-verify': 'unverified',
};
/**
 * The only query options taken. Every other one is refused, among them those naming a host, a
 * socket or a file on the function's machine (host, hostaddr, sslrootcert, sslcert, sslkey,
 * passfile, service) and `options`, which could undo the session's read-only setting.
 */
const OPTIONS = new Set(['sslmode', 'application_name']);
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new ConnectionRefused('The connection string has a malformed %-escape');
  }
};

/**
 * A `postgres://` URL with one host name or IP address. Refuses a Unix socket (an empty host, a
 * `/path`, or `host=` in the query), a list of hosts, the keyword=value form and any option but
 * sslmode and application_name: the executor connects only where the address guard has looked.
 */
export function parseConnectionString(value: string): ConnectionTarget {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConnectionRefused('Give the connection as a postgres:// URL with a host name or IP address');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new ConnectionRefused('Give the connection as a postgres:// URL');
  const bracketed = /^\[(.*)\]$/.exec(url.hostname)?.[1];
  const host = bracketed ?? url.hostname;
  const literal = bracketed ? isIP(bracketed) === 6 : isIP(host) === 4;
  if (!literal && !DNS_NAME.test(host))
    throw new ConnectionRefused('The host must be one DNS name or IP address (no socket path, no list of hosts)');
  if (url.hash) throw new ConnectionRefused('The connection string has a fragment');
  const path = url.pathname.replace(/^\//, '');
  if (path.includes('/')) throw new ConnectionRefused('The path names one database');
  for (const key of url.searchParams.keys())
    if (!OPTIONS.has(key)) throw new ConnectionRefused(`The connection option "${key}" is not allowed`);
  const sslmode = url.searchParams.get('sslmode') ?? 'disable';
  const tls = SSL_MODES[sslmode];
  if (!tls) throw new ConnectionRefused(`sslmode must be one of ${Object.keys(SSL_MODES).join(', ')}`);
  const user = decode(url.username);
  if (!user) throw new ConnectionRefused('The connection string names no user');
  return {
    host: host.toLowerCase(),
    port: url.port ? Number(url.port) : 5432,
    database: decode(path) || user,
    user,
    password: url.password ? decode(url.password) : undefined,
    tls,
  };
}

/** What the reviewer sees of the connection: host, port and database, never the credentials. */
export const describeTarget = (t: ConnectionTarget) =>
  `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}/${t.database}`;
