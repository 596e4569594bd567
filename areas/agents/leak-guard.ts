/**
 * Whether an answer repeats the system prompt: any run of WINDOW characters of the prompt (case and
 * spacing aside) found in the answer. A model talked into reciting its instructions is stopped
 * however the request reached it; an answer that merely shares a few words does not match.
 */
const WINDOW = 40;
/** Shorter prompts say too little to tell a recital from a coincidence. */
const MIN_PROMPT = 24;

const normal = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ');

export const PROMPT_WITHHELD = 'I cannot share my instructions, but I am happy to help with your question.';

export interface LeakGuard {
  /** Characters of an answer held back while streaming, so a recital is caught before it is shown. */
  readonly holdBack: number;
  leaks(answer: string): boolean;
}

export function leakGuard(systemPrompt: string): LeakGuard {
  const prompt = normal(systemPrompt);
  if (prompt.length < MIN_PROMPT) return { holdBack: 0, leaks: () => false };
  const size = Math.min(WINDOW, prompt.length);
  const windows = new Set<string>();
  for (let i = 0; i + size <= prompt.length; i++) windows.add(prompt.slice(i, i + size));
  return {
    holdBack: size,
    leaks(answer) {
      const a = normal(answer);
      for (let i = 0; i + size <= a.length; i++) if (windows.has(a.slice(i, i + size))) return true;
      return false;
    },
  };
}
