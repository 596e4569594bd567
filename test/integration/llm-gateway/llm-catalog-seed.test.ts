import { DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { BEDROCK_MODELS } from '#areas/llm-gateway/bedrock-models.ts';
import { forgetCatalog, listModels } from '#areas/llm-gateway/catalog.ts';
import { LlmCatalogSeed } from '#lib/llm-catalog-seed.ts';
import { config } from '#shared/platform/config.ts';
import { ip } from '#test/support/gateway.ts';
import { invoke } from '#test/support/invoke.ts';
import { tokenFor } from '#test/support/tokens.ts';

/**
 * The deploy-time seed's SDK calls, taken from the synthesized template and run as the CDK's
 * provider runs them (the same TransactWriteItems, TransactionCanceledException ignored) against
 * DynamoDB Local: the gateway reads the entries, and a SystemAdmin's later edit survives a redeploy.
 */
const SEEDED = ['amazon.nova-lite-v1:0', 'amazon.nova-pro-v1:0', 'amazon.titan-embed-text-v2:0'];
let calls: { TransactItems: unknown[] }[];

beforeAll(() => {
  const stack = new Stack(new App(), 'Seed');
  const table = new Table(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
  new LlmCatalogSeed(stack, 'Seed', { table, bedrockModels: SEEDED });
  const tableRef = JSON.stringify(stack.resolve(table.tableName));
  calls = Object.values(Template.fromStack(stack).findResources('Custom::LlmModelSeed')).map((r) => {
    const create = r.Properties.Create['Fn::Join'][1]
      .map((part: unknown) =>
        typeof part === 'string' ? part : JSON.stringify(part) === tableRef ? config.tableName : '?',
      )
      .join('');
    return JSON.parse(create).parameters;
  });
});

const client = () =>
  new DynamoDBClient({
    endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB,
    region: process.env.AWS_REGION ?? 'us-east-1',
  });

/** One deploy: each seed's call; an existing entry cancels its transaction, which the seed ignores. */
async function deploy(): Promise<string[]> {
  const outcome: string[] = [];
  for (const parameters of calls) {
    try {
      await client().send(new TransactWriteItemsCommand(parameters as never));
      outcome.push('written');
    } catch (err) {
      if ((err as Error).name !== 'TransactionCanceledException') throw err;
      outcome.push('kept');
    }
  }
  forgetCatalog();
  return outcome;
}

const def = (bedrockId: string) => BEDROCK_MODELS.find((m) => m.bedrockId === bedrockId)!;

describe('Bedrock catalog seed, applied to the table', () => {
  it('gives a fresh stage its models (names, prices, fallbacks), beside the local ones; a redeploy keeps them', async () => {
    expect(await deploy()).toEqual(['written', 'written', 'written']);
    const bedrock = (await listModels()).filter((m) => m.provider === 'bedrock');
    expect(bedrock.map((m) => m.name)).toEqual(['nova-lite', 'nova-pro', 'titan-embed-text-v2']);
    expect(bedrock.find((m) => m.name === 'nova-pro')).toMatchObject({
      id: def('amazon.nova-pro-v1:0').catalogId,
      providerModel: 'amazon.nova-pro-v1:0',
      kind: 'chat',
      inputPricePerMillion: 0.8,
      outputPricePerMillion: 3.2,
      fallbackModelIds: [def('amazon.nova-lite-v1:0').catalogId],
      isActive: true,
    });
    expect((await listModels({ kind: 'embedding' })).map((m) => m.name)).toContain('titan-embed-text-v2');
    expect(await deploy()).toEqual(['kept', 'kept', 'kept']);
  });

  it("never overwrites a SystemAdmin's edit, and the seeded name stays unique", async () => {
    const admin = await tokenFor({ role: 'SystemAdmin' });
    const lite = def('amazon.nova-lite-v1:0');
    const edited = await invoke('PUT', `/api/llm-gateway/models/${lite.catalogId}`, {
      token: admin,
      ip: ip(),
      body: {
        name: 'nova-lite',
        provider: 'bedrock',
        providerModel: lite.bedrockId,
        kind: 'chat',
        inputPricePerMillion: 0.07,
        outputPricePerMillion: 0.28,
        contextWindow: 300_000,
        isActive: false,
      },
    });
    expect(edited).toAnswer(200);
    await deploy();
    expect((await listModels()).find((m) => m.id === lite.catalogId)).toMatchObject({
      inputPricePerMillion: 0.07,
      outputPricePerMillion: 0.28,
      isActive: false,
    });
    // The seed claimed the name as the PUT route does: another entry cannot take it.
    const taken = await invoke('PUT', `/api/llm-gateway/models/${crypto.randomUUID()}`, {
      token: admin,
      ip: ip(),
      body: {
        name: 'nova-pro',
        provider: 'bedrock',
        providerModel: 'amazon.nova-pro-v1:0',
        kind: 'chat',
        inputPricePerMillion: 1,
        outputPricePerMillion: 1,
        contextWindow: 1000,
      },
    });
    expect(taken).toAnswer(409);
  });
});
