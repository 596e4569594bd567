import './env.ts';
import { measureGateway } from './gateway.ts';
import { measureGatewayEdge } from './gateway-edge.ts';
import { print, runPhaseAlone } from './harness.ts';

/** `npm run bench:gateway`: the gateway phases of `npm run bench` alone (in process, then at the HTTP edge). */
await runPhaseAlone('gateway', measureGateway);
await runPhaseAlone('gateway-edge', () => measureGatewayEdge(print));
