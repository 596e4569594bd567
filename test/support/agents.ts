import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { LOCAL_MODEL_IDS } from '#areas/llm-gateway/catalog.ts';
import { keys } from '#shared/data/keys.ts';
import { ddb } from '#shared/platform/aws.ts';
import { config } from '#shared/platform/config.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { caller } from './invoke.ts';
import { tokenFor } from './tokens.ts';

/** Helpers of the agents' tests: a prompt with (or without) an Active version, a tool in a given status. */
export const AGENTS = '/api/ai/agents';

export async function newPrompt(token: string, opts: { active?: boolean; modelId?: string | null } = {}) {
  const p = caller('/api/prompts', token);
  const res = await p.post('', {
    title: `Prompt ${crypto.randomUUID().slice(0, 6)}`,
    content: 'You are {{agent_name}}. Answer briefly.',
    modelId: opts.modelId === undefined ? LOCAL_MODEL_IDS.chat : opts.modelId,
  });
  expect(res).toAnswer(201);
  const prompt = res.json.result as { id: string; versions: { id: string }[] };
  if (opts.active !== false) {
    const v = prompt.versions[0]!.id;
    expect(await p.put(`/${prompt.id}/versions/${v}/review`)).toAnswer(204);
    expect(await p.put(`/${prompt.id}/versions/${v}/approve`)).toAnswer(204);
  }
  return prompt.id;
}

export async function seedTool(tenantId: string, status: string, extra: Record<string, unknown> = {}) {
  const id = crypto.randomUUID();
  await ddb().send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.tenantItem(tenantId, 'TOOL', id),
        id,
        tenantId,
        status,
        displayName: `Tool ${id.slice(0, 4)}`,
        ...extra,
      },
    }),
  );
  return id;
}

/** A tool through the API: created by `owner` with its step 2 parameters, approved and activated by a SystemAdmin. */
export async function activeToolVia(
  owner: string,
  code: string,
  displayName: string,
  configParams: Record<string, unknown>,
) {
  const baseToolId = BUILT_IN_TOOLS.find((b) => b.code === code)!.id;
  const res = await caller('/api/tools', owner).post('', { displayName, baseToolId, configParams });
  expect(res).toAnswer(201);
  const id = res.json.result.id as string;
  const admin = caller('/api/tools', await tokenFor({ role: 'SystemAdmin' }));
  expect(await admin.put(`/${id}/approve`)).toAnswer(200);
  expect((await admin.put(`/${id}/activate`)).json.result.status).toBe('ACTIVE');
  return id;
}
