import { seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { bumpCounter } from '#shared/data/collection.ts';
import { keys, type PlatformCollection } from '#shared/data/keys.ts';
import { commitChange, putNew } from '#shared/data/commit.ts';
import { ApiError } from '#shared/http/errors.ts';
import { BUILT_IN_TOOLS } from '#areas/tools/built-in-tools.ts';
import { PLANS } from '#areas/billing/plan-catalog.ts';

/**
 * Puts one reference record unless it exists. The record is written with its collection's
 * newest-first index keys and counter like any created item, so the feature's list code needs
 * nothing special; an existing record is left alone (an administrator may have edited it).
 */
async function seedItem(
  name: PlatformCollection,
  record: { id: string; createdAt: string; name: string; code: string },
): Promise<boolean> {
  const collection = keys.platformCollection(name);
  try {
    await commitChange(
      [
        putNew({
          ...keys.platformItem(name, record.id),
          ...keys.newestFirst(collection, record.createdAt, record.id),
          ...record,
          searchText: `${record.name} ${record.code}`.toLowerCase(),
        }),
        bumpCounter(collection, 1),
      ],
      null,
    );
    return true;
  } catch (error) {
    // Seeded before (or edited by an administrator since): left alone.
    if (error instanceof ApiError && error.status === 409) return false;
    throw error;
  }
}

/** Seeds plans, built-in tools and the local models of the gateway's catalog; safe to run on every start. Returns how many were new. */
export async function seedReferenceData(): Promise<number> {
  let added = 0;
  // One at a time: every item of a collection bumps the same counter item.
  for (const plan of PLANS) if (await seedItem('PLAN', plan)) added++;
  for (const tool of BUILT_IN_TOOLS) if (await seedItem('BUILTIN_TOOL', tool)) added++;
  // The gateway's local models (areas/llm-gateway/catalog.ts).
  added += await seedCatalog();
  return added;
}
