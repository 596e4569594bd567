import { keys } from '#shared/data/keys.ts';
import { listNewestFirst } from '#shared/data/collection.ts';

/** A record's audit entries (at most 100), oldest first. */
export const auditEntries = async (entityId: string) =>
  (
    await listNewestFirst<{ action: string; changes: string }>(keys.platformCollection('AUDIT'), {
      page: 1,
      pageSize: 100,
      where: { entityId },
    })
  ).items.reverse();

/** The actions of a record's audit entries, oldest first. */
export const auditActions = async (entityId: string) => (await auditEntries(entityId)).map((e) => e.action);
