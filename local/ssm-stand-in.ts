import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ParameterStore } from '#shared/platform/ports.ts';
import { memoryParameterStore } from './memory-ports.ts';

/** SSM's own key for a SecureString put without a KeyId: its key policy lets SSM use it for the account. */
export const AWS_MANAGED_SSM_KEY = 'alias/aws/ssm';

interface Meta {
  type: 'String' | 'StringList' | 'SecureString';
  keyId?: string;
}

export interface SsmStandIn {
  endpoint: string;
  /** The customer key a SecureString is encrypted with (null for String and for SSM's own key). */
  keyOf(name: string): string | null;
  /** Every parameter name stored. */
  names(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * SSM Parameter Store over HTTP (the AWS JSON 1.1 protocol): GetParameter, GetParameters,
 * GetParametersByPath, PutParameter, DeleteParameter and GetParameterHistory, over a parameter store.
 * A SecureString keeps the key it was put with and is answered encrypted unless WithDecryption:
 * a function's bundle in a fresh process (the bench's cold processes, the deployed tier) reads and
 * writes its parameters with its own SSM client through `AWS_ENDPOINT_URL_SSM`.
 */
export async function startSsmStandIn(store: ParameterStore = memoryParameterStore()): Promise<SsmStandIn> {
  const meta = new Map<string, Meta>();
  const typeOf = (name: string): Meta => meta.get(name) ?? { type: 'String' };
  const parameter = (name: string, value: string, version: number, decrypt: boolean) => {
    const m = typeOf(name);
    const sealed = m.type === 'SecureString' && !decrypt;
    return {
      Name: name,
      Type: m.type,
      Value: sealed ? Buffer.from(`${m.keyId ?? AWS_MANAGED_SSM_KEY}:${value}`).toString('base64') : value,
      Version: version,
      LastModifiedDate: Date.now() / 1000,
      ARN: `arn:aws:ssm:us-east-1:123456789012:parameter/${name.replace(/^\//, '')}`,
      DataType: 'text',
    };
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSSM\./, '');
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      Name?: string;
      Names?: string[];
      Path?: string;
      Recursive?: boolean;
      WithDecryption?: boolean;
      Value?: string;
      Type?: Meta['type'];
      KeyId?: string;
      Overwrite?: boolean;
    };
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    };
    const notFound = () => answer(400, { __type: 'ParameterNotFound', message: `${input.Name} not found` });
    const decrypt = input.WithDecryption === true;
    try {
      switch (action) {
        case 'GetParameter': {
          const found = await store.get(input.Name ?? '');
          return found
            ? answer(200, { Parameter: parameter(input.Name!, found.value, found.version, decrypt) })
            : notFound();
        }
        case 'GetParameters': {
          const names = input.Names ?? [];
          const found = await Promise.all(names.map(async (n) => [n, await store.get(n)] as const));
          return answer(200, {
            Parameters: found.flatMap(([n, p]) => (p ? [parameter(n, p.value, p.version, decrypt)] : [])),
            InvalidParameters: found.flatMap(([n, p]) => (p ? [] : [n])),
          });
        }
        case 'GetParametersByPath': {
          const path = input.Path ?? '/';
          const prefix = path.endsWith('/') ? path : `${path}/`;
          const found = (await store.listByPath(path)).filter(
            (p) => input.Recursive || !p.name.slice(prefix.length).includes('/'),
          );
          return answer(200, { Parameters: found.map((p) => parameter(p.name, p.value, p.version, decrypt)) });
        }
        case 'GetParameterHistory': {
          const found = await store.get(input.Name ?? '');
          return found
            ? answer(200, { Parameters: [parameter(input.Name!, found.value, found.version, decrypt)] })
            : notFound();
        }
        case 'PutParameter': {
          const type = input.Type ?? typeOf(input.Name ?? '').type;
          const out = await store.put(input.Name ?? '', input.Value ?? '', {
            secure: type === 'SecureString',
            overwrite: input.Overwrite ?? false,
          });
          meta.set(input.Name!, { type, ...(type === 'SecureString' && input.KeyId ? { keyId: input.KeyId } : {}) });
          return answer(200, { Version: out.version, Tier: 'Standard' });
        }
        case 'DeleteParameter': {
          if (!(await store.delete(input.Name ?? ''))) return notFound();
          meta.delete(input.Name!);
          return answer(200, {});
        }
        default:
          return answer(400, { __type: 'InvalidAction', message: `${action} is not served by the SSM stand-in` });
      }
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'ParameterAlreadyExists') return answer(400, { __type: name, message: (err as Error).message });
      return answer(500, { __type: 'InternalServerError', message: String(err) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    keyOf: (name) => {
      const m = meta.get(name);
      return m?.type === 'SecureString' && m.keyId && m.keyId !== AWS_MANAGED_SSM_KEY ? m.keyId : null;
    },
    names: async () => (await store.listByPath('/')).map((p) => p.name),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
