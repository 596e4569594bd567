/** What the agents area uses of the channels area: the connections' routes, which the agents function serves. */
export { channelRoutes } from './routes.ts';
