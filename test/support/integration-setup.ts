import { beforeAll, inject } from 'vitest';
import { seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { ensureTable } from '#local/dynamodb-local.ts';
import { installTestPorts } from './test-ports.ts';

// Each test file gets a fresh table in the shared DynamoDB Local, so files never see each other's data.
process.env.AWS_ENDPOINT_URL_DYNAMODB = inject('dynamoEndpoint');
process.env.TABLE_NAME = `test-${crypto.randomUUID()}`;

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!);
  await installTestPorts();
  // The gateway's local models: every model call (chat, embeddings) goes through the catalog.
  await seedCatalog();
});
