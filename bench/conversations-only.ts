import './env.ts';
import { measureConversations } from './conversations.ts';
import { runPhaseAlone } from './harness.ts';

/** `npm run bench:conversations`: the conversations phase of `npm run bench` alone. */
await runPhaseAlone('conversations', measureConversations);
