/** What the agents area uses of the prompts area: the one module of prompts it imports. */
export { forcedVariantVersion } from './ab-test.ts';
export { renderTemplate } from './placeholders.ts';
export { prompts } from './records.ts';
export type { PromptItem, Variant, VersionItem } from './records.ts';
