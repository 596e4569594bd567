import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { FunctionHost } from './function-host.ts';
import { ACCOUNT, REGION, type StackTemplate } from './template.ts';

export interface CfnResponse {
  Status: 'SUCCESS' | 'FAILED';
  Reason?: string;
  PhysicalResourceId?: string;
  LogicalResourceId: string;
  Data?: unknown;
}

/**
 * Where a custom resource's provider answers CloudFormation: a presigned HTTPS URL it PUTs its
 * result to, on port 443 (the CDK's provider passes no port). Here an HTTPS server on a loopback
 * address of its own, whose certificate the functions trust (NODE_EXTRA_CA_CERTS): binding 443
 * needs root or CAP_NET_BIND_SERVICE, which this machine's users have.
 */
export async function startCloudFormationResponses(workDir: string) {
  const address = `127.${50 + Math.floor(Math.random() * 150)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  const pems = await generate([{ name: 'commonName', value: address }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: address }] },
    ],
  });
  const caFile = join(workDir, 'cloudformation-ca.pem');
  writeFileSync(caFile, pems.cert);
  const answers = new Map<string, (r: CfnResponse) => void>();
  const server = createServer({ key: pems.private, cert: pems.cert }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const id = new URL(req.url ?? '/', `https://${address}`).pathname.split('/').pop() ?? '';
    answers.get(id)?.(JSON.parse(Buffer.concat(chunks).toString('utf8')) as CfnResponse);
    res.writeHead(200);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(new Error(`CloudFormation's response endpoint needs port 443 on ${address}: ${(err as Error).message}`)),
    );
    server.listen(443, address, resolve);
  });
  return {
    caFile,
    /** Sends the resource's Create event to its provider and waits for the provider's answer. */
    async create(t: StackTemplate, id: string, host: FunctionHost): Promise<CfnResponse> {
      const requestId = crypto.randomUUID();
      const answered = new Promise<CfnResponse>((r) => answers.set(requestId, r));
      const r = t.resources[id]!;
      const properties = t.resolve(r.Properties);
      const out = await host.invoke({
        RequestType: 'Create',
        ServiceToken: properties.ServiceToken,
        ResponseURL: `https://${address}/cloudformation-custom-resource-response/${requestId}?X-Amz-Expires=7200`,
        StackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${t.stackName}/deployed`,
        RequestId: requestId,
        LogicalResourceId: id,
        ResourceType: r.Type,
        ResourceProperties: properties,
      });
      if (!out.ok) throw new Error(`Provider of ${id} failed: ${JSON.stringify(out.payload)}`);
      return answered;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The template's custom resources whose provider is one of its functions. */
export const customResources = (t: StackTemplate) =>
  Object.entries(t.resources).filter(
    ([, r]) => r.Type.startsWith('Custom::') && r.Properties?.ServiceToken?.['Fn::GetAtt'],
  );
