import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { listening } from './http-fronts.ts';
import type { Decision, TemplateIam } from './iam-check.ts';
import {
  accessKeyOf,
  type Authorization,
  authorizationsOf,
  type ServiceName,
  type WireRequest,
} from './iam-requests.ts';

/** Where a service's requests go once allowed: a stand-in's address, or a handler in this process. */
export type Upstream =
  | { url: string }
  | { handle(req: WireRequest, res: ServerResponse | Http2ServerResponse, caller: string | undefined): Promise<void> };

export interface FrontOptions {
  iam: TemplateIam;
  partitionKey: string;
  /** Authorizations a service implies beyond the request's own (KMS behind an SSM SecureString). */
  implied?: Partial<Record<ServiceName, (req: WireRequest) => Promise<Authorization[]>>>;
}

const denial = (service: ServiceName, d: Decision) => {
  const message = `User: ${d.caller} is not authorized to perform: ${d.action} on resource: ${d.resource}`;
  if (service === 's3')
    return {
      status: 403,
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${message}</Message></Error>`,
    };
  if (service === 'ses')
    return {
      status: 403,
      type: 'text/xml',
      body: `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${message}</Message></Error></ErrorResponse>`,
    };
  return {
    status: service === 'dynamodb' || service === 'ssm' || service === 'sqs' ? 400 : 403,
    type: 'application/x-amz-json-1.0',
    body: JSON.stringify({ __type: 'AccessDeniedException', message, Message: message }),
  };
};

const readBody = async (req: IncomingMessage | Http2ServerRequest) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

/**
 * The recording front of one AWS service: every request a bundle sends is taken apart by its
 * protocol (iam-requests.ts), each authorization it implies is evaluated against the caller's role
 * in the template (iam-check.ts), and only an allowed request reaches the stand-in; a denied one is
 * answered as AWS answers it and stays in the record, which fails the test.
 */
export async function startFront(
  service: ServiceName,
  upstream: Upstream,
  opts: FrontOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const serve = async (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    try {
      const wire: WireRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: await readBody(req),
      };
      const key = accessKeyOf(wire);
      const asks = [...authorizationsOf(service, wire, opts), ...((await opts.implied?.[service]?.(wire)) ?? [])];
      for (const ask of asks) {
        const d = await opts.iam.check(key, ask);
        if (!d.allowed) {
          const a = denial(service, d);
          res.writeHead(a.status, { 'content-type': a.type, 'x-amzn-errortype': 'AccessDeniedException' });
          res.end(a.body);
          return;
        }
      }
      if ('handle' in upstream) return await upstream.handle(wire, res, key);
      const out = res as ServerResponse;
      const target = new URL(req.url ?? '/', upstream.url);
      // The Host header is kept: the stand-ins that check SigV4 signatures see what was signed.
      const forward = request(target, { method: wire.method, headers: req.headers }, (answer) => {
        out.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(out);
      });
      forward.on('error', (err) => {
        if (!out.headersSent) out.writeHead(502);
        out.end(String(err));
      });
      forward.end(wire.body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ __type: 'InternalFailure', message: String(err) }));
    }
  };
  // Bedrock Runtime's client speaks HTTP/2 (prior knowledge on an http:// endpoint); the others HTTP/1.1.
  const server = service === 'bedrock-runtime' ? createHttp2Server(serve) : createServer(serve);
  return listening(server);
}
