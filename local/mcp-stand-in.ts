import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

/**
 * A small deterministic MCP server over Streamable HTTP, built with the official SDK's server side,
 * for the local run and the tests: `lookup_order` reads (annotated readOnlyHint), `create_ticket`
 * changes something (it records each call), `fail_always` answers a tool error, `huge_report`
 * answers more text than a tool's result limit, `slow_report` answers after five seconds. Knobs let a test change a schema, demand a bearer
 * token, or answer every request with a redirect. With `oauth` it is also its own authorization
 * server for the client-credentials grant (protected-resource and authorization-server metadata, a
 * token endpoint taking client_secret_basic) and demands the token it issued.
 */
export interface McpStandIn {
  url: string;
  /** The tickets `create_ticket` made, in order: proof that a call ran (or did not). */
  tickets: { subject: string; priority: string }[];
  /** The Authorization header of each request, as seen. */
  authorizations: (string | null)[];
  /** A second version of `create_ticket`'s input schema (adds a required `customerId`). */
  changeTicketSchema(): void;
  /** Every request answered 307 to this location (a redirect test), or back to normal with null. */
  redirectTo(location: string | null): void;
  close(): Promise<void>;
}

export async function startMcpStandIn(
  opts: { host?: string; port?: number; token?: string; oauth?: { clientId: string; clientSecret: string } } = {},
): Promise<McpStandIn> {
  const tickets: McpStandIn['tickets'] = [];
  const issued = new Set<string>();
  const authorizations: McpStandIn['authorizations'] = [];
  let ticketVersion = 1;
  let redirect: string | null = null;

  const factory = () => {
    const server = new McpServer({ name: 'stand-in', version: '1.0.0' });
    server.registerTool(
      'lookup_order',
      {
        description: 'Look up an order by its number',
        inputSchema: z.object({ orderId: z.string().max(40) }),
        annotations: { readOnlyHint: true },
      },
      ({ orderId }) => ({
        content: [{ type: 'text', text: `Order ${orderId}: shipped on 2026-11-30` }],
        structuredContent: { orderId, status: 'shipped' },
      }),
    );
    server.registerTool(
      'create_ticket',
      {
        description: 'Open a support ticket',
        inputSchema:
          ticketVersion === 1
            ? z.object({ subject: z.string().max(200), priority: z.optional(z.enum(['low', 'high'])) })
            : z.object({
                subject: z.string().max(200),
                priority: z.optional(z.enum(['low', 'high'])),
                customerId: z.string(),
              }),
        annotations: { destructiveHint: false },
      },
      (args: { subject: string; priority?: string }) => {
        tickets.push({ subject: args.subject, priority: args.priority ?? 'low' });
        return { content: [{ type: 'text', text: `Ticket T-${tickets.length} opened: ${args.subject}` }] };
      },
    );
    server.registerTool(
      'fail_always',
      { description: 'Always fails', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
      () => ({ content: [{ type: 'text', text: 'The upstream system is down' }], isError: true }),
    );
    server.registerTool(
      'slow_report',
      { description: 'Answers after five seconds', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
      async () => {
        await new Promise((done) => setTimeout(done, 5000).unref());
        return { content: [{ type: 'text', text: 'Finally' }] };
      },
    );
    server.registerTool(
      'huge_report',
      { description: 'A very long report', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
      () => ({ content: [{ type: 'text', text: 'x'.repeat(2_000_000) }] }),
    );
    return server;
  };
  const handler = createMcpHandler(factory);

  const listener = async (req: IncomingMessage, res: ServerResponse) => {
    authorizations.push(req.headers.authorization ?? null);
    if (redirect) {
      res.writeHead(307, { location: redirect }).end();
      return;
    }
    const origin = `http://${req.headers.host}`;
    if (opts.oauth && (await answeredAsAuthServer(req, res, origin, opts.oauth, issued))) return;
    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    const wanted = opts.oauth ? bearer !== undefined && issued.has(bearer) : !opts.token || bearer === opts.token;
    if (!wanted) {
      const challenge = opts.oauth
        ? { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }
        : {};
      res.writeHead(401, { 'content-type': 'application/json', ...challenge }).end('{"error":"unauthorized"}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await handler.fetch(
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        ...(body && req.method !== 'GET' ? { body } : {}),
      }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
  const server = createServer((req, res) => {
    listener(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((done) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    tickets,
    authorizations,
    changeTicketSchema: () => {
      ticketVersion = 2;
    },
    redirectTo: (location) => {
      redirect = location;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The stand-in's authorization server (RFC 9728 and RFC 8414 metadata, an RFC 6749 token endpoint); false for any other path. */
async function answeredAsAuthServer(
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
  client: { clientId: string; clientSecret: string },
  issued: Set<string>,
): Promise<boolean> {
  const json = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const path = (req.url ?? '').split('?')[0];
  if (path?.startsWith('/.well-known/oauth-protected-resource')) {
    json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    return true;
  }
  if (path === '/.well-known/oauth-authorization-server') {
    json(200, {
      issuer: origin,
      token_endpoint: `${origin}/token`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      response_types_supported: ['token'],
    });
    return true;
  }
  if (path !== '/token') return false;
  let form = '';
  for await (const c of req) form += c;
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;
  if (req.headers.authorization !== basic || new URLSearchParams(form).get('grant_type') !== 'client_credentials') {
    json(401, { error: 'invalid_client' });
    return true;
  }
  const token = `at-${crypto.randomUUID()}`;
  issued.add(token);
  json(200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
  return true;
}
