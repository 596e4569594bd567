import { expect, it } from 'vitest';
import { expectedCounts } from '#areas/tools/kb-status.ts';

it("sums the distinct live bases of a tool's live agents, and skips deleted tools", () => {
  const tools = [
    { id: 'both', agentIds: ['a1', 'a2'] },
    { id: 'gone-agent', agentIds: ['a3'] },
    { id: 'none', agentIds: [] },
    { id: 'old', chunkCount: 5 },
    { id: 'deleted', agentIds: ['a1'], deletedAt: '2026-01-01T00:00:00.000Z' },
  ];
  const agents = [
    { id: 'a1', knowledgeBaseIds: ['kb1'] },
    // kb1 twice through two agents counts once; kb-missing was deleted (no item).
    { id: 'a2', knowledgeBaseIds: ['kb1', 'kb2', 'kb-missing'] },
    // a3 was deleted: the agents area answers only live agents, so it is not among them.
  ];
  const bases = [
    { id: 'kb1', chunkCount: 7 },
    { id: 'kb2', chunkCount: 3 },
  ];
  expect(Object.fromEntries(expectedCounts(tools, agents, bases))).toEqual({
    both: 10,
    'gone-agent': 0,
    none: 0,
    old: 0,
  });
});
