import { Sha256 } from '@aws-crypto/sha256-js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from './config.ts';
import type { FunctionInvoker } from './ports.ts';

/**
 * Lambda's Invoke API (RequestResponse), signed with the SDK's own SigV4 signer and credential chain
 * (both already inside every bundle's AWS SDK): one POST, the function's answer as the body, a
 * function error said by `X-Amz-Function-Error`. The caller's deadline aborts the wait.
 */
export function createLambdaInvoker(): FunctionInvoker {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  // The SDK's own endpoint settings, which every other client honours (a stand-in, a VPC endpoint).
  const endpoint =
    process.env.AWS_ENDPOINT_URL_LAMBDA ?? process.env.AWS_ENDPOINT_URL ?? `https://lambda.${region}.amazonaws.com`;
  const signer = new SignatureV4({ service: 'lambda', region, credentials: defaultProvider(), sha256: Sha256 });
  return {
    async invoke(fn, payload, { timeoutMs }) {
      const base = new URL(endpoint);
      const hostname = base.host;
      const path = `${base.pathname.replace(/\/$/, '')}/2015-03-31/functions/${encodeURIComponent(config.functionName(fn))}/invocations`;
      const body = JSON.stringify(payload);
      const signed = await signer.sign({
        method: 'POST',
        protocol: base.protocol,
        hostname,
        path,
        headers: { host: hostname, 'content-type': 'application/json', 'x-amz-invocation-type': 'RequestResponse' },
        body,
      });
      const res = await fetch(`${base.protocol}//${hostname}${path}`, {
        method: 'POST',
        headers: signed.headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (!res.ok || res.headers.get('x-amz-function-error')) throw new Error(`Invoke of ${fn} failed (${res.status})`);
      return JSON.parse(text) as unknown;
    },
  };
}
