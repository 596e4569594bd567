import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { definePort } from './ports.ts';

/**
 * The DynamoDB document client, one per process, created on first use so a cold start pays only for
 * the clients a function touches. Locally the SDK's `AWS_ENDPOINT_URL_DYNAMODB` points it at DynamoDB
 * Local; tests install a counting or failing client in its place.
 */
export const ddb = definePort(() =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 5 }), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  }),
);
