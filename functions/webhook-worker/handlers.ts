import type { MessageHandler } from '../../shared/queue/worker.ts';

/** Message type -> handler. Payment provider events are added with the billing area. */
export const webhookMessageHandlers: Record<string, MessageHandler> = {};
