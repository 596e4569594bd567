import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ParameterStore } from '#shared/platform/ports.ts';

/**
 * SSM Parameter Store over HTTP (the AWS JSON 1.1 protocol, GetParameter and GetParametersByPath),
 * answering from a parameter store: a function's bundle in a fresh process (bench/cold-answer.ts)
 * fetches its signing keys with its own SSM client, as on Lambda, through `AWS_ENDPOINT_URL_SSM`.
 */
export async function startSsmStandIn(store: ParameterStore): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSSM\./, '');
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { Name?: string; Path?: string };
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    };
    const parameter = (name: string, value: string, version: number) => ({
      Name: name,
      Type: 'String',
      Value: value,
      Version: version,
      LastModifiedDate: Date.now() / 1000,
    });
    if (action === 'GetParameter') {
      const found = await store.get(input.Name ?? '');
      if (!found) return answer(400, { __type: 'ParameterNotFound', message: `${input.Name} not found` });
      return answer(200, { Parameter: parameter(input.Name!, found.value, found.version) });
    }
    if (action === 'GetParametersByPath') {
      const found = await store.listByPath(input.Path ?? '/');
      return answer(200, { Parameters: found.map((p) => parameter(p.name, p.value, p.version)) });
    }
    return answer(400, { __type: 'InvalidAction', message: `${action} is not served by the bench's SSM stand-in` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
