import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { definePort } from './ports.ts';

/**
 * The DynamoDB document client, one per process, created on first use so a cold start pays only for
 * the clients a function touches. Locally the SDK's `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB
 * Local; tests install a counting or failing client in its place.
 */
export const ddb = definePort(() => {
  const client = new DynamoDBClient({ maxAttempts: 5 });
  // The SDK's logger middleware builds a filtered copy of every request and answer for its logger,
  // even the no-op one it has when none is given (as here): CPU on every request for nothing.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
});
