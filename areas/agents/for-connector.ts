/** What the connector area uses of the agents area: whether a connection's agent is published. */
export { publishedAgent } from './published.ts';
