import * as z from 'zod/mini';
import { logger } from '#shared/runtime/logger.ts';
import { runBrowser, type BrowserOutcome } from './run-browser.ts';
import { saveScreenshot } from './screenshots.ts';
import { budgetOf, parseSteps } from './steps.ts';

const event = z.object({
  tenantId: z.uuid(),
  toolId: z.string().check(z.maxLength(64)),
  requestId: z.string().check(z.maxLength(200)),
  budget: z.object({
    maxSteps: z.number(),
    timeoutSeconds: z.number(),
    allowedHosts: z.array(z.string().check(z.maxLength(253))).check(z.maxLength(50)),
  }),
  steps: z.unknown(),
});

/**
 * The browser function's one job: the event checked again (it trusts no caller), the bounds clamped,
 * the steps run. It always answers a tool outcome, never throws: a browser that fails is the tool's
 * error for the model to explain, not a failed invocation.
 */
export async function browserAction(raw: unknown): Promise<BrowserOutcome> {
  const parsed = event.safeParse(raw);
  if (!parsed.success) return { ok: false, error: 'The browser action request is not valid; nothing was done' };
  const { tenantId, toolId, requestId } = parsed.data;
  const budget = budgetOf(parsed.data.budget);
  const steps = parseSteps({ steps: parsed.data.steps }, budget.maxSteps);
  if (!steps.ok) return steps;
  const started = Date.now();
  const out = await runBrowser({ tenantId, toolId, requestId, budget, steps: steps.steps }, (png) =>
    saveScreenshot(tenantId, png),
  );
  logger.info('browser action', {
    requestId,
    tenantId,
    toolId,
    ok: out.ok,
    steps: out.result?.steps.length ?? 0,
    refused: out.result?.refused.length ?? 0,
    durationMs: Date.now() - started,
  });
  return out;
}
