/** What the agents area uses of the prompts area: the one module of prompts it imports. */
export { forcedVariantVersion } from './ab-test.ts';
export { renderTemplate } from './placeholders.ts';
export { findPrompt, pinnedVersion } from './lookups.ts';
export type { PromptItem, Variant, VersionItem } from './records.ts';
export { autoScoresUpdate, currentEvaluation, EVALUATE_VERSION, evaluationUpdate } from './evaluation.ts';
export { readPrompt, versionOf } from './prompts.ts';
export type { CaseResult, EvaluationModel, EvaluationRecord, TestCaseRecord } from './records.ts';
export { SAFETY_PROBES } from './safety-probes.ts';
export type { Probe } from './safety-probes.ts';
export { allTestCases } from './test-cases.ts';
