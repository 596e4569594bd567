import * as z from 'zod/mini';
import { once } from '#shared/routes/types.ts';

/**
 * What the model asks the Browser Action tool to do: a list of steps run in order in one fresh
 * browser context. Checked twice: by the agent runtime before it invokes the browser function (a bad
 * call costs no browser), and by that function, which trusts no caller.
 */
export const BROWSER_LIMITS = {
  /** A tool's `maxSteps` is clamped to this, whatever is stored. */
  maxSteps: 25,
  /** A tool's `timeoutSeconds` is clamped to this: an agent turn answers within the HTTP API's 30 s. */
  maxSeconds: 25,
  urlLength: 2048,
  selectorLength: 500,
  textLength: 500,
  valueLength: 2000,
  /** Characters of visible text one `read` step returns. */
  readChars: 4000,
  /** Requests one call may make (page, sub-resources, redirects). */
  requests: 300,
  /** Bytes one call may download across all its requests. */
  bytes: 20 * 1024 * 1024,
  /**
   * Milliseconds a step waits for its element, at most, and never past the call's deadline: a missing
   * element fails its step with a reason rather than the whole call running out of time.
   */
  elementWaitMs: 5_000,
  viewport: { width: 1280, height: 800 },
} as const;

const bounded = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));

/** An element: a CSS or Playwright selector, or the visible text it shows. */
const target = {
  selector: z.optional(bounded(BROWSER_LIMITS.selectorLength)),
  text: z.optional(bounded(BROWSER_LIMITS.textLength)),
};
const oneTarget = (s: { selector?: string; text?: string }) => (s.selector === undefined) !== (s.text === undefined);
const ONE_TARGET = 'Give exactly one of selector or text';

const step = once(() =>
  z.discriminatedUnion('action', [
    z.object({ action: z.literal('navigate'), url: bounded(BROWSER_LIMITS.urlLength) }),
    z.object({ action: z.literal('click'), ...target }).check(z.refine(oneTarget, ONE_TARGET)),
    z.object({
      action: z.literal('fill'),
      selector: bounded(BROWSER_LIMITS.selectorLength),
      value: z.string().check(z.maxLength(BROWSER_LIMITS.valueLength)),
    }),
    z.object({
      action: z.literal('select'),
      selector: bounded(BROWSER_LIMITS.selectorLength),
      value: bounded(BROWSER_LIMITS.valueLength),
    }),
    z.object({ action: z.literal('wait_for'), ...target }).check(z.refine(oneTarget, ONE_TARGET)),
    z.object({ action: z.literal('read'), selector: z.optional(bounded(BROWSER_LIMITS.selectorLength)) }),
    z.object({ action: z.literal('screenshot') }),
  ]),
);
export type BrowserStep = z.infer<ReturnType<typeof step>>;

export const stepsSchema = once(() => z.object({ steps: z.array(step()).check(z.minLength(1)) }));

/** The sentence a model reads when its steps are not steps. */
export const stepsRefusal = (issues: readonly { path: PropertyKey[]; message: string }[]) => {
  const first = issues.slice(0, 3).map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`);
  return `The arguments must be {"steps": [...]} with actions navigate, click, fill, select, wait_for, read, screenshot (${first.join('; ')})`;
};

/** Steps within the tool's bound, or the sentence a model can act on. */
export const withinSteps = (steps: BrowserStep[], maxSteps: number) =>
  steps.length > maxSteps ? `At most ${maxSteps} steps per call; ${steps.length} were given. Nothing was done.` : null;

/** The tool's step-2 parameters as the browser honours them: clamped to the platform's bounds. */
export interface BrowserBudget {
  maxSteps: number;
  timeoutSeconds: number;
  allowedHosts: string[];
}
export const budgetOf = (p: {
  maxSteps?: number;
  timeoutSeconds?: number;
  allowedHosts?: string[];
}): BrowserBudget => ({
  maxSteps: Math.min(Math.max(1, Math.trunc(p.maxSteps ?? 10)), BROWSER_LIMITS.maxSteps),
  timeoutSeconds: Math.min(Math.max(1, Math.trunc(p.timeoutSeconds ?? 20)), BROWSER_LIMITS.maxSeconds),
  allowedHosts: (p.allowedHosts ?? []).map((h) => h.toLowerCase()),
});

/** The steps, or a sentence the model can act on. */
export function parseSteps(
  args: unknown,
  maxSteps: number,
): { ok: true; steps: BrowserStep[] } | { ok: false; error: string } {
  const r = stepsSchema().safeParse(args);
  if (!r.success) return { ok: false, error: stepsRefusal(r.error.issues) };
  const tooMany = withinSteps(r.data.steps, maxSteps);
  return tooMany ? { ok: false, error: tooMany } : { ok: true, steps: r.data.steps };
}

/** What the browser function answers for one step. */
export type StepResult =
  | {
      action: BrowserStep['action'];
      ok: true;
      url?: string;
      title?: string;
      text?: string;
      truncated?: boolean;
      screenshotUrl?: string;
      expiresAt?: string;
    }
  | { action: BrowserStep['action']; ok: false; error: string };

/** The browser function's event: the tool's bounds and the steps, and whose call it is. */
export interface BrowserActionRequest {
  tenantId: string;
  toolId: string;
  requestId: string;
  budget: BrowserBudget;
  steps: BrowserStep[];
}
