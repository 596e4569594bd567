import { createInterface } from 'node:readline/promises';

/**
 * `npm run smoke -- <base-url> --email you@example.com`: a deployed stage's first check, as a new
 * customer meets it: onboarding and sign-up (the verification code arrives by e-mail and is typed in),
 * a gateway key, a `/v1` chat completion (`--model`, default nova-lite), a knowledge upload indexed
 * by the worker and found again by retrieval. It prints each step and stops at the first that fails.
 */
export interface SmokeOptions {
  email: string;
  /** The six-digit code of the verification e-mail sent to `email`. */
  readCode(email: string): Promise<string>;
  /** Called while waiting for the indexing worker (the deployed tier drains its queues here). */
  whileWaiting?(): Promise<unknown>;
  log?(line: string): void;
  /** The chat model called through `/v1` (default `nova-lite`, the stage's default Bedrock model). */
  model?: string;
  /** How long indexing may take before the smoke fails. */
  indexingTimeoutMs?: number;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: an API answer read by path
  json: any;
}

export async function smoke(baseUrl: string, opts: SmokeOptions) {
  const log = opts.log ?? console.log;
  const base = baseUrl.replace(/\/$/, '');
  const call = async (method: string, path: string, body?: unknown, token?: string): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  const step = async (name: string, expected: number, run: () => Promise<Answer>) => {
    const a = await run();
    if (a.status !== expected)
      throw new Error(`${name}: expected ${expected}, got ${a.status} ${JSON.stringify(a.json)}`);
    log(`ok  ${name}`);
    return a.json;
  };
  const password = `Smoke-${crypto.randomUUID()}`;
  const person = { email: opts.email, firstName: 'Smoke', lastName: 'Test' };
  const started = await step('onboarding', 201, () =>
    call('POST', '/api/onboarding/start', { tenantName: `Smoke ${new Date().toISOString()}`, ...person }),
  );
  await step('register', 201, () =>
    call('POST', '/api/auth/register', { ...person, password, invitationCode: started.result.invitationCode }),
  );
  const code = await opts.readCode(opts.email);
  await step('verify e-mail', 200, () => call('POST', '/api/auth/verify-email', { email: opts.email, code }));
  const login = await step('sign in', 200, () => call('POST', '/api/auth/login', { email: opts.email, password }));
  const token = login.result.accessToken as string;
  const key = (await step('gateway key', 201, () => call('POST', '/api/llm-gateway/keys', { name: 'smoke' }, token)))
    .result.key as string;
  const models = await step('models', 200, () => call('GET', '/api/llm-gateway/v1/models', undefined, key));
  const model = opts.model ?? 'nova-lite';
  if (!((models.data ?? []) as { id: string }[]).some((m) => m.id === model))
    throw new Error(`models: the stage does not offer ${model} (pass --model <name>)`);
  const completion = await step(`chat completion (${model})`, 200, () =>
    call(
      'POST',
      '/api/llm-gateway/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'Say hello' }] },
      key,
    ),
  );
  log(`    ${JSON.stringify(completion.choices?.[0]?.message?.content ?? '').slice(0, 80)}`);
  const kb = (await step('knowledge base', 201, () => call('POST', '/api/knowledge/bases', { name: 'Smoke' }, token)))
    .result.id as string;
  const fact = `The smoke lantern ${crypto.randomUUID().slice(0, 8)} hangs in the north stairwell.`;
  await step('upload', 202, () =>
    call('POST', `/api/knowledge/bases/${kb}/documents`, { title: 'Smoke', text: fact }, token),
  );
  const deadline = Date.now() + (opts.indexingTimeoutMs ?? 120_000);
  for (;;) {
    await opts.whileWaiting?.();
    const docs = await call('GET', `/api/knowledge/bases/${kb}/documents`, undefined, token);
    const status = docs.json?.result?.items?.[0]?.status;
    if (status === 'Indexed') break;
    if (status === 'Failed') throw new Error(`indexing failed: ${JSON.stringify(docs.json.result.items[0].error)}`);
    if (Date.now() > deadline) throw new Error(`indexing: still ${status} after the timeout`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  log('ok  indexed');
  const found = await step('retrieve', 200, () =>
    call(
      'POST',
      `/api/knowledge/bases/${kb}/retrieve`,
      { query: 'where does the smoke lantern hang?', mode: 'hybrid', topK: 3 },
      token,
    ),
  );
  const matches = (found.result ?? []) as { text: string }[];
  if (!matches.some((m) => m.text.includes('north stairwell')))
    throw new Error('retrieve: the uploaded text was not found');
  log('ok  the uploaded text was retrieved');
  return { token, key, kb, model, matches };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--email');
  const email = at >= 0 ? args[at + 1] : undefined;
  const modelAt = args.indexOf('--model');
  const model = modelAt >= 0 ? args[modelAt + 1] : undefined;
  const baseUrl = args.find((a, i) => !a.startsWith('--') && i !== at + 1 && i !== modelAt + 1);
  if (!baseUrl || !email) {
    console.error('Usage: npm run smoke -- <base-url> --email <an address you can read> [--model <catalog name>]');
    process.exit(2);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    await smoke(baseUrl, {
      email,
      ...(model ? { model } : {}),
      readCode: async (to) => (await rl.question(`The verification code sent to ${to}: `)).trim(),
    });
    console.log('Smoke passed.');
  } catch (err) {
    console.error(`Smoke failed: ${(err as Error).message}`);
    process.exitCode = 1;
  } finally {
    rl.close();
  }
}
