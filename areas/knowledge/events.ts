import * as z from 'zod/mini';
import { defineEvent } from '#shared/data/events.ts';
import { uuid } from '#shared/routes/schemas.ts';

/**
 * What the knowledge area tells the areas above it (their entry points wire the subscribers):
 * - a base's chunks changed (a document indexed or deleted, a base with chunks deleted): the tools
 *   area recomputes its tools' kbStatus;
 * - a base was deleted (at the delete, and again by the purge worker, so a draft that named it in a
 *   race loses it too): the agents area takes it out of the drafts that name it.
 */
export const CHUNKS_CHANGED = defineEvent('knowledge.chunks-changed', () =>
  z.object({ tenantId: uuid(), cause: z.string().check(z.maxLength(100)) }),
);

export const BASE_DELETED = defineEvent('knowledge.base-deleted', () =>
  z.object({
    tenantId: uuid(),
    kbId: uuid(),
    /** Who deleted it (the agents' audit entries name them); null from the purge worker. */
    actor: z.nullable(z.object({ userId: z.string(), email: z.string() })),
  }),
);
