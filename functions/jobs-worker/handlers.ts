import type { MessageHandler } from '../../shared/queue/worker.ts';

/** Job type -> handler. Each area registers its jobs here. */
export const jobHandlers: Record<string, MessageHandler> = {};
