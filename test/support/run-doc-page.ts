import { spawn } from 'node:child_process';
import { assigned, forServer, type PageServer, PRELUDE, pageScript } from './doc-pages.ts';

export interface PageRun {
  code: number | null;
  output: string;
  ms: number;
}

/** Runs bash on a script, with a deadline; stdout and stderr together, as a reader would see them. */
export function bash(script: string, timeoutMs: number, sourceIp?: string): Promise<PageRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DOC_SOURCE_IP: sourceIp ?? '' },
    });
    let output = '';
    const keep = (c: Buffer) => (output = (output + c.toString('utf8')).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

/**
 * The shared setup of docs/try/README.md, run once: its variables are written to `varsFile` for the
 * pages, which source it, as a reader keeps one shell open.
 */
export async function runSetup(
  readme: string,
  server: PageServer,
  varsFile: string,
  timeoutMs: number,
  sourceIp?: string,
) {
  const script = forServer(pageScript(readme), server);
  const names = assigned(script).join(' ');
  return bash(`${PRELUDE}${script}\ndeclare -p ${names} > '${varsFile}'`, timeoutMs, sourceIp);
}

export function runPage(page: string, server: PageServer, varsFile: string, timeoutMs: number, sourceIp?: string) {
  return bash(`${PRELUDE}source '${varsFile}'\n${forServer(pageScript(page), server)}`, timeoutMs, sourceIp);
}
