import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { LOG_RETENTION } from './functions.ts';
import {
  AwsCustomResource,
  AwsCustomResourcePolicy,
  PhysicalResourceId,
  type AwsSdkCall,
} from 'aws-cdk-lib/custom-resources';
import { marshall } from '@aws-sdk/util-dynamodb';
import { Construct } from 'constructs';
import { bedrockCatalogInput, offeredBedrockModels } from '#areas/llm-gateway/bedrock-models.ts';
import { gatewayKeys, modelRecord, catalogItems } from '#areas/llm-gateway/records.ts';

/** The seeded entries' createdAt/updatedAt: fixed, so a redeploy renders the same call (no update). */
const SEED_TIME = '2026-01-01T00:00:00.000Z';

/**
 * The stage's Bedrock models (settings.bedrockModels) written to the model catalog on deploy, each
 * only when absent: a SystemAdmin's later edits (prices, the active flag, a rename) are never
 * overwritten, and a model they deleted comes back only if its seed changes.
 *
 * One AwsCustomResource per model (a resource and its policy; two models by default, five at most),
 * each ONE TransactWriteItems of the two items `putModel` writes for a new entry (the model and the
 * claim on its name), both `attribute_not_exists(pk)`: an entry that exists, or a name another
 * model took, cancels the transaction, which the seed ignores. A per-model resource rather than one
 * batch: BatchWriteItem has no conditions, and one transaction for all models would skip every new
 * model once any one exists. Nothing is deleted when a model leaves the stage's list (the gateway's
 * IAM grant drops it, so calls to it fail): deactivate it with the PUT route.
 */
export class LlmCatalogSeed extends Construct {
  readonly seeds: AwsCustomResource[] = [];

  constructor(scope: Construct, id: string, props: { table: Table; bedrockModels: readonly string[] }) {
    super(scope, id);
    const offered = offeredBedrockModels(props.bedrockModels);
    if (!offered.length) return;
    // The CDK's one provider function of every AwsCustomResource, set up like the app's functions
    // (lib/functions.ts): its own log group and a role that may write only there, traced.
    const logGroup = new LogGroup(this, 'Logs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    role.addToPolicy(
      new PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
    );
    for (const m of offered) {
      const { id: modelId, ...input } = bedrockCatalogInput(m, offered);
      const items = catalogItems(modelRecord(modelId, input, SEED_TIME));
      const write = (item: Record<string, unknown>) => ({
        Put: {
          TableName: props.table.tableName,
          Item: marshall(item),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      const call: AwsSdkCall = {
        service: 'DynamoDB',
        action: 'TransactWriteItems',
        parameters: { TransactItems: [write(items.model), write(items.nameClaim)] },
        physicalResourceId: PhysicalResourceId.of(`llm-model-${modelId}`),
        ignoreErrorCodesMatching: 'TransactionCanceledException',
      };
      this.seeds.push(
        new AwsCustomResource(this, m.name, {
          resourceType: 'Custom::LlmModelSeed',
          onCreate: call,
          onUpdate: call,
          // The Lambda runtime's SDK: no npm install during a deploy.
          installLatestAwsSdk: false,
          role,
          logGroup,
          memorySize: 256,
          policy: AwsCustomResourcePolicy.fromStatements([
            new PolicyStatement({
              actions: ['dynamodb:PutItem'],
              resources: [props.table.tableArn],
              // This model's two items only: the catalog's partition and its name claim's.
              conditions: {
                'ForAllValues:StringEquals': {
                  'dynamodb:LeadingKeys': [gatewayKeys.models(), items.nameClaim.pk],
                },
              },
            }),
          ]),
        }),
      );
    }
    const provider = Stack.of(this).node.tryFindChild(AWS_CUSTOM_RESOURCE_PROVIDER)?.node.defaultChild as
      | CfnFunction
      | undefined;
    if (provider) provider.tracingConfig = { mode: 'Active' };
  }
}

/** The construct id the CDK gives AwsCustomResource's singleton provider (at the stack's root). */
const AWS_CUSTOM_RESOURCE_PROVIDER = 'AWS679f53fac002430cb0da5b7982bd2287';
