import './env.ts';
import { measureGateway } from './gateway.ts';
import { runPhaseAlone } from './harness.ts';

/** `npm run bench:gateway`: the gateway phase of `npm run bench` alone. */
await runPhaseAlone('gateway', measureGateway);
