import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { queryItems } from '#shared/data/query.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { existingBases } from '#areas/knowledge/for-prompts.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { limitReached } from './errors.ts';
import { readPrompt, writablePrompt } from './prompts.ts';
import { prompts, toTestCase, type TestCaseRecord } from './records.ts';

/** Test cases per prompt: every evaluation runs them all, so their number bounds its model calls. */
export const MAX_TEST_CASES = 50;

const audit = (tenantId: string, actor: Principal, id: string, action: string, changes: Record<string, unknown>) => ({
  tenantId,
  actor,
  entityType: 'PromptTestCase',
  entityId: id,
  action,
  changes,
});

/** Every test case of a prompt, oldest first: at most MAX_TEST_CASES, one Query. */
export async function allTestCases(tenantId: string, promptId: string) {
  const items = await queryItems<TestCaseRecord & { sk: string }>({
    TableName: config.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': prompts.testCases(tenantId, promptId) },
  });
  return items.filter((i) => i.sk !== keys.counter('').sk).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export async function addTestCase(
  tenantId: string,
  promptId: string,
  input: Pick<TestCaseRecord, 'question' | 'mustContain' | 'mustNotContain'> & { knowledgeBaseId?: string | null },
  actor: Principal,
) {
  await writablePrompt(tenantId, promptId);
  if (input.knowledgeBaseId && !(await existingBases(tenantId, [input.knowledgeBaseId])).size)
    throw validationError([{ path: 'body.knowledgeBaseId', message: "Not a knowledge base of the tenant's" }]);
  const c: TestCaseRecord = {
    id: crypto.randomUUID(),
    tenantId,
    promptId,
    question: input.question,
    mustContain: [...new Set(input.mustContain)],
    mustNotContain: [...new Set(input.mustNotContain)],
    knowledgeBaseId: input.knowledgeBaseId ?? null,
    createdAt: new Date().toISOString(),
  };
  const collection = prompts.testCases(tenantId, promptId);
  await commitChange(
    [
      putNew({ ...prompts.testCase(tenantId, promptId, c.id), ...c }),
      orConflict(
        updateItem(
          keys.counter(collection),
          {},
          {
            add: { count: 1 },
            condition: 'attribute_not_exists(#count) OR #count < :max',
            names: { '#count': 'count' },
            values: { ':max': MAX_TEST_CASES },
          },
        ),
        limitReached(`${MAX_TEST_CASES} test cases`),
      ),
    ],
    audit(tenantId, actor, c.id, 'create', { promptId, question: c.question.slice(0, 200) }),
    { now: c.createdAt },
  );
  return toTestCase(c);
}

export async function listTestCases(tenantId: string, promptId: string, q: { page: number; pageSize: number }) {
  await readPrompt(tenantId, promptId);
  const all = await allTestCases(tenantId, promptId);
  const start = (q.page - 1) * q.pageSize;
  return toPage(all.slice(start, start + q.pageSize).map(toTestCase), all.length, q.page, q.pageSize);
}

export async function deleteTestCase(tenantId: string, promptId: string, testCaseId: string, actor: Principal) {
  await writablePrompt(tenantId, promptId);
  await commitChange(
    [
      orConflict(
        deleteItem(prompts.testCase(tenantId, promptId, testCaseId), 'attribute_exists(pk)'),
        notFound('Test case'),
      ),
      bumpCounter(prompts.testCases(tenantId, promptId), -1),
    ],
    audit(tenantId, actor, testCaseId, 'delete', { promptId }),
  );
}
