import './env.ts';
import { runPhaseAlone } from './harness.ts';
import { measureWebhooks } from './webhooks.ts';

/** `npm run bench:webhooks`: the webhooks phase of `npm run bench` alone. */
await runPhaseAlone('webhooks', measureWebhooks);
