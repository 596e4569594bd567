import { type Stack, Validations, type CfnResource } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DataStores } from './data.ts';
import type { PlatformHttpApi } from './http-api.ts';
import type { Monitoring } from './monitoring.ts';
import type { WorkQueues } from './queues.ts';
import { paramPath, type StackSettings } from './settings.ts';

/**
 * The cdk-nag findings (AwsSolutions and Serverless packs, run by test/infra/nag.test.ts) that are
 * accepted, each with its one-line reason. They are set on the stack, the API or the queue
 * construct, never on one function or route, so functions, routes and queues added later are
 * covered by the same lines; anything new that is not listed here fails the test.
 */
export interface NagScope {
  settings: StackSettings;
  data: DataStores;
  queues: WorkQueues;
  httpApi: PlatformHttpApi;
  monitoring: Monitoring;
}

const ack = (scope: Construct, id: string, reason: string) => Validations.of(scope).acknowledge({ id, reason });

/** `<LogicalId.Arn>/*`, as cdk-nag spells a wildcard under a resource's ARN. */
const underArn = (stack: Stack, resource: Construct) =>
  `<${stack.getLogicalId(resource.node.defaultChild as CfnResource)}.Arn>/*`;

/** `arn:<AWS::Partition>:ssm:...:parameter/<app>/<stage>/<path>`, as cdk-nag spells a parameter ARN. */
const parameterPattern = (settings: StackSettings, path: string) =>
  `arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/${paramPath(settings, path)}`;

export function acknowledgeNagFindings(stack: Stack, { settings, data, queues, httpApi, monitoring }: NagScope): void {
  ack(
    httpApi,
    'AwsSolutions-APIG4',
    'Every route authorizes in its function from the route table (bearer JWT, internal key or provider signature); public routes need none.',
  );

  ack(
    stack,
    'AwsSolutions-IAM5[Resource::*]',
    'X-Ray writes have no resource-level permissions, and SES sending is pinned by ses:FromAddress (sandbox recipients are identities too); test/infra/iam.test.ts allows nothing else on *.',
  );
  for (const path of ['vault/*', 'vault-sources/*', 'tenants/*']) {
    ack(
      stack,
      `AwsSolutions-IAM5[Resource::${parameterPattern(settings, path)}]`,
      'Vault secrets are created at run time under this path; the path is the narrowest resource.',
    );
  }
  ack(
    stack,
    `AwsSolutions-IAM5[Resource::${parameterPattern(settings, 'providers/*')}]`,
    'One parameter per configured provider, named by the deployment, under this path only.',
  );
  for (const bucket of [data.media, data.invoices]) {
    ack(
      stack,
      `AwsSolutions-IAM5[Resource::${underArn(stack, bucket)}]`,
      'Object keys are created at run time (per tenant); the grant covers this one bucket.',
    );
  }
  ack(
    stack,
    `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(data.media.node.defaultChild as CfnResource)}.Arn>/knowledge/*]`,
    "The functions that run agent turns read knowledge bases' keyword indexes, written at run time per base under this prefix of the media bucket; read only.",
  );
  ack(
    stack,
    `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(data.media.node.defaultChild as CfnResource)}.Arn>/browser-shots/*]`,
    'The Browser Action function writes one screenshot per step under this prefix (named at run time) and presigns it; the bucket expires the prefix after a day.',
  );
  ack(
    stack,
    `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(data.knowledgeVectors)}.VectorBucketArn>/index/kb-*]`,
    "Knowledge vector indexes are created at run time, one per knowledge base; the grant covers this one vector bucket's indexes.",
  );
  for (const action of ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*']) {
    ack(
      stack,
      `AwsSolutions-IAM5[Action::${action}]`,
      "The CDK's bucket read/write grant on one bucket: object versions, tags and multipart uploads the S3 client uses.",
    );
  }

  ack(
    stack,
    'Serverless-LambdaDLQ',
    'No function is invoked asynchronously: API Gateway calls synchronously and workers are fed by SQS, whose queues have DLQs.',
  );
  ack(
    stack,
    'Serverless-LambdaEventSourceMappingDestination',
    'SQS event sources take no on-failure destination; the source queue redrives to its DLQ after 5 receives.',
  );
  for (const dlq of Object.values(queues.deadLetters)) {
    ack(
      dlq,
      'Serverless-SQSRedrivePolicy',
      'A dead-letter queue is the end of the line: its messages raise an alarm and are redriven by hand.',
    );
  }
  ack(
    stack,
    'Serverless-EventBusDLQ',
    'A scheduled run that EventBridge could not deliver needs no dead letter: the next minute finds whatever is still due.',
  );
  ack(
    monitoring.topic,
    'Serverless-SNSRedrivePolicy',
    'An alarm e-mail that cannot be delivered has no reader in a DLQ either; alarm states stay on the dashboard.',
  );
}
