/** What the conversations area uses of the prompts area: the one module of prompts it imports. */
export { checkGuard, variantCounterWrite, variantForConversation } from './ab-test.ts';
export type { ConversationVariant, VariantCounters } from './records.ts';
