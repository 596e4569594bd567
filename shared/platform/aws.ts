import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * One DynamoDB document client per process, created on first use so a cold start pays only
 * for the clients a function touches. `DYNAMODB_ENDPOINT` points it at DynamoDB Local.
 */
let documentClient: DynamoDBDocumentClient | undefined;

export function ddb(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    const client = new DynamoDBClient({
      ...(endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'us-east-1' } : {}),
      maxAttempts: 5,
    });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  }
  return documentClient;
}

/** Tests and the local server swap the client (e.g. to count requests); null resets. */
export function setDdb(client: DynamoDBDocumentClient | undefined) {
  documentClient = client;
}
