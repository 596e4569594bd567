import type { FunctionInvoker, InvokedFunction } from '#shared/platform/ports.ts';

/**
 * Lambda Invoke, locally: the invoked function's own handler, in this process, loaded on first
 * call (Chromium and Playwright load only when a Browser Action runs). The caller's deadline holds
 * as it would against Lambda.
 */
const HANDLERS: Record<InvokedFunction, () => Promise<{ handler: (event: unknown) => Promise<unknown> }>> = {
  'browser-action': () => import('#functions/browser-action/index.ts'),
};

export const localInvoker: FunctionInvoker = {
  async invoke(fn, payload, { timeoutMs }) {
    const { handler } = await HANDLERS[fn]();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${fn} did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // A copy through JSON, as the Invoke API carries it.
      return JSON.parse(JSON.stringify(await Promise.race([handler(JSON.parse(JSON.stringify(payload))), late])));
    } finally {
      clearTimeout(timer);
    }
  },
};
