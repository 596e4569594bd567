import type { Client } from '@modelcontextprotocol/client';
import { pinnedFetch } from '#shared/http/pinned-fetch.ts';
import type { McpAuthMethod } from '#areas/tools/records.ts';

/**
 * One exchange with a tenant's MCP server through the official SDK's client (loaded on first use: a
 * lazy package beside the bundle, lib/bundling.ts). Every exchange opens its own session and closes
 * it, so nothing (a session id, a cached list) outlives the call or reaches another tenant's. Every
 * request goes through the address guard and a pinned connection (shared/http/pinned-fetch.ts),
 * within one deadline and an answer size bound.
 */
export interface McpServerAccess {
  serverUrl: string;
  authMethod: McpAuthMethod;
  authHeaderName: string | null;
  /** The client-credentials grant's client (the secret below is its client secret). */
  oauth: { clientId: string; issuer: string; scope: string | null } | null;
  /** The bearer token or header value, resolved from the tenant secret; never logged or answered. */
  secret: string | null;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** The server could not be used: the message is safe to show (it never carries the secret). */
export class McpUnavailable extends Error {
  override name = 'McpUnavailable';
}

const sdk = () => import('@modelcontextprotocol/client');

const authHeaders = (a: McpServerAccess): Record<string, string> => {
  if (!a.secret || a.authMethod === 'none' || a.authMethod === 'oauth') return {};
  if (a.authMethod === 'bearer') return { authorization: `Bearer ${a.secret}` };
  return a.authHeaderName ? { [a.authHeaderName]: a.secret } : {};
};

/** A message with every occurrence of the secret taken out (a server may echo what it was sent). */
export const withoutSecret = (message: string, secret: string | null) =>
  secret && secret.length >= 4 ? message.split(secret).join('[secret]') : message;

export async function withMcpClient<T>(a: McpServerAccess, use: (client: Client, signal: AbortSignal) => Promise<T>) {
  const { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } = await sdk();
  const deadline = Date.now() + a.timeoutMs;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new McpUnavailable('The MCP server did not answer in time')), a.timeoutMs);
  const client = new Client({ name: 'saas-platform', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(a.serverUrl), {
    fetch: pinnedFetch({ deadline, maxBytes: a.maxResponseBytes }),
    requestInit: { headers: authHeaders(a) },
    // The SDK discovers the token endpoint from the server's metadata, through the same guarded
    // fetch, and sends the credentials only to the issuer the tenant named. A token per exchange:
    // nothing of one tenant's session outlives its call.
    ...(a.oauth && a.secret
      ? {
          authProvider: new ClientCredentialsProvider({
            clientId: a.oauth.clientId,
            clientSecret: a.secret,
            expectedIssuer: a.oauth.issuer,
            ...(a.oauth.scope ? { scope: a.oauth.scope } : {}),
          }),
        }
      : {}),
  });
  try {
    await client.connect(transport, { signal: abort.signal, timeout: a.timeoutMs });
    return await use(client, abort.signal);
  } catch (err) {
    throw new McpUnavailable(withoutSecret(messageOf(err), a.secret));
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

function messageOf(err: unknown): string {
  if (!(err instanceof Error)) return 'The MCP server failed';
  if (err instanceof McpUnavailable) return err.message;
  // The SDK's errors name the step; the cause's message says what the guard or the network refused.
  const cause = (err as { cause?: unknown }).cause;
  const why = cause instanceof Error ? cause.message : '';
  return (why && !err.message.includes(why) ? `${err.message}: ${why}` : err.message).slice(0, 500);
}
