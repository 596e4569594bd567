import { request } from 'node:http';
import { expect } from 'vitest';
import { createSsmClient, createSsmParameterStore } from '#shared/platform/aws-params.ts';
import { type DeployedStack, startDeployedStack } from '#local/deployed/deployed-stack.ts';
import { describeDenials } from '#local/deployed/iam-check.ts';
import type { StackTemplate } from '#local/deployed/template.ts';
import { initStage } from '#scripts/stage-init.ts';
import { tempDir } from '#test/support/temp-dir.ts';
import { STACK_NAME } from './assembly.ts';

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: an API answer read by path
  json: any;
  headers: Headers;
}

/** The deployer's SSM client: stage:init runs against the stand-in directly, as a deployer's CLI would. */
export async function deployerParameters(stack: DeployedStack) {
  return createSsmParameterStore(
    createSsmClient({
      endpoint: stack.endpoints.ssm,
      region: 'us-east-1',
      credentials: { accessKeyId: 'deployer', secretAccessKey: 'deployer' },
      maxAttempts: 1,
    }),
  );
}

/** A stack stood up from the assembly and made ready as a first deploy leaves it (parameters, custom resources). */
export async function deployedWorld(assemblyDir: string, edit?: (t: StackTemplate) => void) {
  const stack = await startDeployedStack(assemblyDir, STACK_NAME, {
    workDir: tempDir('deployed-'),
    ...(edit ? { edit } : {}),
  });
  const params = await deployerParameters(stack);
  const init = await initStage(params, 'saas', 'test');
  const resources = await stack.createCustomResources();

  /** A request from `from` (a loopback address: API Gateway's source IP is the TCP peer, and limits count per IP). */
  const call = (
    base: string,
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; headers?: Record<string, string>; from?: string } = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
      const req = request(
        `${base}${path}`,
        {
          method,
          ...(opts.from ? { localAddress: opts.from } : {}),
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
            ...opts.headers,
          },
        },
        async (res) => {
          const chunks: Buffer[] = [];
          for await (const c of res) chunks.push(c as Buffer);
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {}
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
          resolve({ status: res.statusCode ?? 0, text, json, headers });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const api = (method: string, path: string, opts?: Parameters<typeof call>[3]) =>
    call(stack.apiUrl, method, path, opts);
  const streamDoor = (group: string) => {
    const host = stack.byName(`${group}-stream`);
    return stack.functionUrls.get(host.fn.name)!;
  };

  /** Every e-mail SES accepted so far (the SES stand-in's store). */
  const mails = async () => {
    const res = await fetch(`${stack.endpoints.ses}/store`);
    return (
      (await res.json()) as { emails: { destination: { to: string[] }; subject: string; body: { text?: string } }[] }
    ).emails;
  };
  const codeFor = async (email: string) => {
    await stack.pollers.drain();
    const mail = (await mails())
      .reverse()
      .find((m) => m.destination.to.includes(email) && /verification code/.test(m.subject));
    const code = /(\d{6})/.exec(mail?.body.text ?? '')?.[1];
    if (!code) throw new Error(`No verification e-mail to ${email}`);
    return code;
  };

  return { stack, params, init, resources, api, call, streamDoor, mails, codeFor };
}

export type World = Awaited<ReturnType<typeof deployedWorld>>;

/** Fails naming every call a function's role did not allow, and what the bundles logged meanwhile. */
export function expectNoDenials(stack: DeployedStack) {
  const denied = stack.iam.denied();
  expect(denied, describeDenials(denied)).toEqual([]);
}

/** The log lines of a function (its bundle's stdout and stderr), for a failure's message. */
export const logsOf = (stack: DeployedStack, name: string) => stack.byName(name).logs.join('\n');
