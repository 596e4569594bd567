import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ACCOUNT, REGION, type TemplateFunction } from './template.ts';

const BOOTSTRAP_SOURCE = fileURLToPath(new URL('./lambda-bootstrap.ts', import.meta.url));
const PROJECT_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** The runtime's bootstrap as plain JavaScript, and `/var/runtime/node_modules` (the runtime's AWS SDK). */
export async function prepareRuntime(dir: string): Promise<{ bootstrap: string; runtimeModules: string }> {
  const bootstrap = join(dir, 'bootstrap.mjs');
  await build({
    entryPoints: [BOOTSTRAP_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bootstrap,
    logLevel: 'error',
  });
  // Only the SDK, as the Lambda runtime carries it: a function that requires anything else fails as deployed.
  const runtimeModules = join(dir, 'runtime-node_modules');
  mkdirSync(runtimeModules, { recursive: true });
  for (const scope of ['@aws-sdk', '@smithy', '@aws-crypto'])
    symlinkSync(join(PROJECT_MODULES, scope), join(runtimeModules, scope));
  return { bootstrap, runtimeModules };
}

export interface InvokeResult {
  ok: boolean;
  /** The handler's answer (JSON), or Lambda's error object when `ok` is false. */
  payload: unknown;
}

export interface StreamedInvocation {
  contentType: Promise<string>;
  body: AsyncIterable<Buffer>;
  done: Promise<InvokeResult>;
}

interface Pending {
  resolve(r: InvokeResult): void;
  onStart?(contentType: string): void;
  onChunk?(data: Buffer): void;
}

/** One execution environment: a Node process that loaded the function's bundle, one event at a time. */
class Instance {
  busy = false;
  private readonly child: ChildProcess;
  private readonly pending = new Map<string, Pending>();
  readonly ready: Promise<void>;

  constructor(
    private readonly fn: TemplateFunction,
    bootstrap: string,
    env: Record<string, string>,
    private readonly log: (line: string) => void,
  ) {
    this.child = fork(bootstrap, [], {
      cwd: fn.codeDir,
      env,
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    for (const out of [this.child.stdout, this.child.stderr])
      out?.on('data', (d: Buffer) => {
        for (const line of d.toString('utf8').split('\n')) if (line) log(line);
      });
    this.ready = new Promise((resolve, reject) => {
      this.child.on('message', (m: Record<string, unknown>) => {
        if (m.type === 'ready') return resolve();
        if (m.type === 'init-error') {
          // Lambda writes an init failure to the function's log, as here.
          log(`INIT_REPORT Status: error ${JSON.stringify(m.error)}`);
          return reject(new Error(`${fn.name} failed at init: ${JSON.stringify(m.error)}`));
        }
        const p = this.pending.get(m.id as string);
        if (!p) return;
        if (m.type === 'stream-start') p.onStart?.(m.contentType as string);
        else if (m.type === 'chunk') p.onChunk?.(Buffer.from(m.data as string, 'base64'));
        else {
          this.pending.delete(m.id as string);
          p.resolve({ ok: m.type === 'result', payload: m.type === 'result' ? m.result : m.error });
        }
      });
      this.child.on('exit', (code) => {
        reject(new Error(`${fn.name} exited at init (${code})`));
        for (const [id, p] of this.pending) {
          this.pending.delete(id);
          p.resolve({ ok: false, payload: { errorType: 'Runtime.ExitError', errorMessage: `exited (${code})` } });
        }
      });
    });
  }

  get alive() {
    return this.child.exitCode === null && !this.child.killed;
  }

  invoke(event: unknown, p: Omit<Pending, 'resolve'> = {}): Promise<InvokeResult> {
    const id = crypto.randomUUID();
    const timeoutMs = this.fn.timeoutSeconds * 1000;
    return new Promise<InvokeResult>((resolve) => {
      const timer = setTimeout(() => {
        this.log(`Task timed out after ${this.fn.timeoutSeconds} seconds`);
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.pending.set(id, {
        ...p,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
      this.child.send({
        id,
        event,
        deadline: Date.now() + timeoutMs,
        invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${this.fn.name}`,
      });
    });
  }

  stop() {
    if (this.alive) this.child.kill('SIGTERM');
  }
}

/**
 * Lambda for one function of the template: an execution environment (a process) per concurrent event,
 * started cold on demand and kept warm, with the function's environment and timeout.
 */
export class FunctionHost {
  private readonly instances: Instance[] = [];
  readonly logs: string[] = [];
  coldStarts = 0;
  invocations = 0;

  constructor(
    readonly fn: TemplateFunction,
    private readonly bootstrap: string,
    private readonly env: () => Record<string, string>,
  ) {}

  private async instance(): Promise<Instance> {
    for (let i = this.instances.length - 1; i >= 0; i--) if (!this.instances[i]!.alive) this.instances.splice(i, 1);
    let found = this.instances.find((i) => !i.busy);
    if (!found) {
      this.coldStarts++;
      found = new Instance(this.fn, this.bootstrap, this.env(), (line) => this.logs.push(line));
      this.instances.push(found);
    }
    found.busy = true;
    try {
      await found.ready;
    } catch (err) {
      found.stop();
      this.instances.splice(this.instances.indexOf(found), 1);
      throw err;
    }
    return found;
  }

  async invoke(event: unknown): Promise<InvokeResult> {
    this.invocations++;
    const instance = await this.instance();
    try {
      return await instance.invoke(event);
    } finally {
      instance.busy = false;
    }
  }

  /** A response-stream invocation (a function URL in RESPONSE_STREAM mode): the bytes as they are written. */
  async invokeStream(event: unknown): Promise<StreamedInvocation> {
    this.invocations++;
    const instance = await this.instance();
    const chunks: Buffer[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let started: (t: string) => void = () => undefined;
    const contentType = new Promise<string>((r) => (started = r));
    const done = instance
      .invoke(event, {
        onStart: (t) => started(t),
        onChunk: (c) => {
          chunks.push(c);
          wake?.();
        },
      })
      .then((r) => {
        finished = true;
        instance.busy = false;
        started('application/octet-stream');
        wake?.();
        return r;
      });
    async function* body() {
      for (;;) {
        if (chunks.length) yield chunks.shift()!;
        else if (finished) return;
        else await new Promise<void>((r) => (wake = r));
      }
    }
    return { contentType, body: body(), done };
  }

  stop() {
    for (const i of this.instances.splice(0)) i.stop();
  }
}
