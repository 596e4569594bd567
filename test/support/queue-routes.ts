import * as z from 'zod/mini';
import { handles, messageKind, type MessageRoute } from '#shared/queue/messages.ts';

/** Ad-hoc message kinds for worker tests: each type accepts any object payload. */
export const routesOf = (
  handlers: Record<string, (payload: Record<string, unknown>) => Promise<unknown>>,
): MessageRoute[] =>
  Object.entries(handlers).map(([type, run]) =>
    handles(
      messageKind('jobs', type, () => z.looseObject({})),
      run,
    ),
  );
