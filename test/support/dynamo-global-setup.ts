import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#local/dynamodb-local.ts';

/** One DynamoDB Local for the integration tier; each test file makes its own table in it. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
