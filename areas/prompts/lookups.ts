import { get } from '#shared/data/read.ts';
import { prompts, type PromptItem, type VersionItem } from './records.ts';

/**
 * What the agents read of prompts: a prompt as it is (for a draft's settings and its Active
 * version), and a published agent's pinned version. Apart from the use cases, so the bundles that
 * read a prompt take only these.
 */
export const findPrompt = (tenantId: string, promptId: string, opts: { consistent?: boolean } = {}) =>
  get<PromptItem>(prompts.key(tenantId, promptId), opts);

/** The prompt's version by id, or undefined when the prompt or the version is gone (two reads: the index, then the version). */
export async function pinnedVersion(tenantId: string, promptId: string, versionId: string) {
  const prompt = await findPrompt(tenantId, promptId);
  const n = prompt?.versionIndex?.[versionId];
  if (n === undefined) return undefined;
  const version = await get<VersionItem>(prompts.version(tenantId, promptId, n));
  return version?.id === versionId ? version : undefined;
}
