import {
  COLD_ANSWER_TARGET,
  COLD_RATIO_TARGET,
  formatMarkdown,
  formatSummary,
  WARM_OVERHEAD_TARGET_MS,
  type Results,
} from './report.ts';

/**
 * Generated sections of docs/bench.md (the README links there for figures): every figure in them
 * comes from bench/results.json through these functions, between markers that `npm run bench:docs`
 * (and `npm run bench` at its end) rewrite. test/unit/bench-docs.test.ts fails when a file differs.
 */
export const DOC_FILES = ['docs/bench.md'] as const;

const begin = (name: string) =>
  `<!-- bench:${name}:begin (generated from bench/results.json by npm run bench:docs; do not edit) -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

export function docSections(r: Results): Record<string, string> {
  const s = r.settings;
  return {
    settings: (s.answerRuns
      ? [
          `Cold first answer: ${s.answerRuns} rounds per API function and its floor (fewer, not below 5, when the phase would pass ${s.answerBudgetSeconds} s);`,
          `import only (information): ${s.coldRuns} runs per bundle and per floor (fewer, not below 7, when the phase would pass ${s.coldBudgetSeconds} s);`,
          `warm: ${s.warmIterations} timed iterations; scale: ${s.scaleIterations} iterations per point;`,
          `verdicts: cold first answer ratio <= ${COLD_ANSWER_TARGET}, warm overhead <= ${WARM_OVERHEAD_TARGET_MS} ms. Last run took ${Math.round(r.durationSeconds)} s.`,
        ]
      : [
          `Cold init: ${s.coldRuns} runs per bundle and per floor (fewer, not below 7, when the phase would pass ${s.coldBudgetSeconds} s);`,
          `warm: ${s.warmIterations} timed iterations; scale: ${s.scaleIterations} iterations per point;`,
          `verdicts: import-only ratio <= ${COLD_RATIO_TARGET}, warm overhead <= ${WARM_OVERHEAD_TARGET_MS} ms. Last run took ${Math.round(r.durationSeconds)} s.`,
        ]
    ).join('\n'),
    summary: formatSummary(r),
    results: formatMarkdown(r),
  };
}

/** Replaces the body of every marked section the text holds; unknown section names are an error. */
export function fillSections(text: string, sections: Record<string, string>): string {
  const marker = /<!-- bench:([a-z-]+):begin[^>]*-->\n[\s\S]*?<!-- bench:\1:end -->/g;
  return text.replace(marker, (_, name: string) => {
    const body = sections[name];
    if (body === undefined) throw new Error(`No generated section named "${name}"`);
    return `${begin(name)}\n${body}\n${end(name)}`;
  });
}
