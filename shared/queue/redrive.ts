/**
 * Receives before SQS moves a message to its queue's dead-letter queue. The stack sets it as each
 * queue's redrive policy; the worker reads it to tell a retried failure from a parked one.
 */
export const MAX_RECEIVE_COUNT = 5;
