import { vi } from 'vitest';
import type * as admission from '#areas/llm-gateway/admission.ts';

/**
 * Gateway instances in one test process: each is the admission module with module state of its own
 * (its leases, slices and remembered standings, as a Lambda instance has), all on one table.
 */
export type Gateway = typeof admission;

/**
 * A new instance. Resetting the module registry resets the routes' modules too: make what the
 * routes make (tenants, keys) before the first instance.
 */
export async function gatewayInstance(): Promise<Gateway> {
  vi.resetModules();
  await (await import('./test-ports.ts')).installTestPorts();
  return import('#areas/llm-gateway/admission.ts');
}

export const PROMPT = 10;
export const OUT = 90;
export const WORST = PROMPT + OUT;

const input = (tenantId: string, keyId: string, now: number) => ({
  tenantId,
  caller: { kind: 'key' as const, keyId },
  requestId: crypto.randomUUID(),
  model: 'local-chat',
  kind: 'chat' as const,
  promptTokens: PROMPT,
  maxOutput: OUT,
  now,
});

/** A call admitted by gateway `g` and left running (its instance dies before it ends). */
export const admitOnly = (g: Gateway, tenantId: string, keyId: string, now = Date.now()) =>
  g.admit(input(tenantId, keyId, now));

/** One call through gateway `g` that uses `used` tokens: 'ok' once settled, or its refusal's code. */
export async function callThrough(g: Gateway, tenantId: string, keyId: string, now = Date.now(), used = WORST) {
  try {
    const a = await g.admit(input(tenantId, keyId, now));
    await g.finish(a, { model: a.chain[0]!, promptTokens: PROMPT, completionTokens: used - PROMPT }, undefined, now);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

export const count = (codes: string[], code: string) => codes.filter((c) => c === code).length;
