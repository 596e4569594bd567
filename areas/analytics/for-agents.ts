/** What the agents area uses of the analytics area: the one module of analytics it imports. */
export { MAX_RANGE_DAYS, resolveRange } from './range.ts';
export { agentDayRange } from './records.ts';
export { agentDay } from './records.ts';
