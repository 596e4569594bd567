import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

/**
 * A small deterministic MCP server over Streamable HTTP, built with the official SDK's server side,
 * for the local run and the tests: `lookup_order` reads (annotated readOnlyHint), `create_ticket`
 * changes something (it records each call), `fail_always` answers a tool error, `huge_report`
 * answers more text than a tool's result limit, `slow_report` answers after five seconds. Knobs let a test change a schema, demand a bearer
 * token, or answer every request with a redirect.
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
  opts: { host?: string; port?: number; token?: string } = {},
): Promise<McpStandIn> {
  const tickets: McpStandIn['tickets'] = [];
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
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
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
