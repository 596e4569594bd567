import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { TABLE_DESIGN } from '#shared/data/table-design.ts';
import type { GroupSpec, QueueName } from '#shared/routes/groups.ts';
import type { InvokedFunction } from '#shared/platform/ports.ts';
import { functionNameSetting } from '#shared/platform/config.ts';
import type { DataStores } from './data.ts';
import { SCREENSHOT_PREFIX as BROWSER_SHOTS_PREFIX } from '#areas/tools/browser/screenshots.ts';
import type { WorkQueues } from './queues.ts';
import { paramPath, type StackSettings } from './settings.ts';

/** What one function may touch: a group's or worker's spec from shared/routes/groups.ts. */
export interface AccessSpec extends Omit<GroupSpec, 'description' | 'sends'> {
  sends?: readonly QueueName[];
  /** Verifies bearer tokens: reads the public JWK set (every function that serves routes). */
  verifiesTokens?: boolean;
  ses?: boolean;
  /** Reads `/<app>/<stage>/vault-sources/...` (the vault sync job imports from there). */
  readsVaultSources?: boolean;
}

export interface PlatformResources {
  settings: StackSettings;
  data: DataStores;
  queues: WorkQueues;
  vaultKey: IKey;
  /** Link base for e-mails; the API URL unless the settings name one. */
  publicBaseUrl: string;
  /** The functions others invoke and wait for (made before their callers). */
  invoked?: Partial<Record<InvokedFunction, LambdaFunction>>;
}

const invokedOf = (res: PlatformResources, name: InvokedFunction) => {
  const fn = res.invoked?.[name];
  if (!fn) throw new Error(`Function ${name} must be made before the functions that invoke it`);
  return fn;
};

const VAULT_SSM_ACTIONS = [
  'ssm:GetParameter',
  'ssm:GetParameters',
  'ssm:GetParametersByPath',
  'ssm:PutParameter',
  'ssm:DeleteParameter',
  'ssm:GetParameterHistory',
];
const VAULT_SOURCE_ACTIONS = ['ssm:GetParameter', 'ssm:GetParametersByPath'];
/** Tenant secrets are read, written and deleted one by one, by name; never listed. */
const TENANT_SECRET_ACTIONS = ['ssm:GetParameter', 'ssm:PutParameter', 'ssm:DeleteParameter'];
const VAULT_KMS_ACTIONS = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey'];

/** S3 Vectors: a filtered query also needs GetVectors (metadata is read to filter). */
const KNOWLEDGE_VECTOR_READ_ACTIONS = ['s3vectors:QueryVectors', 's3vectors:GetVectors', 's3vectors:GetIndex'];
const KNOWLEDGE_VECTOR_WRITE_ACTIONS = [
  ...KNOWLEDGE_VECTOR_READ_ACTIONS,
  's3vectors:CreateIndex',
  's3vectors:DeleteIndex',
  's3vectors:PutVectors',
  's3vectors:DeleteVectors',
];

/**
 * Table actions, narrower than the CDK's grantRead/WriteData: no Scan (never on a request path),
 * no stream reads (the table has no stream), no DescribeTable. Transactions are authorized per item
 * through these same actions.
 */
const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** `arn:<partition>:ssm:<region>:<account>:parameter/<app>/<stage>/<path>` */
const parameterArn = (stack: Stack, settings: StackSettings, path: string) =>
  stack.formatArn({
    service: 'ssm',
    resource: 'parameter',
    resourceName: paramPath(settings, path),
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });

/** Foundation-model ARNs of these Bedrock model ids, in the stack's region (no account in the ARN). */
const bedrockModelArns = (stack: Stack, ids: readonly string[]) =>
  ids.map((id) => stack.formatArn({ service: 'bedrock', account: '', resource: 'foundation-model', resourceName: id }));

/** The environment the runtime's config (shared/platform/config.ts) reads; only what the spec uses. */
export function environmentFor(spec: AccessSpec, res: PlatformResources): Record<string, string> {
  const { settings, data, queues } = res;
  return {
    ...settings.extraEnv,
    APP_NAME: settings.appName,
    STAGE: settings.stage,
    ...(spec.table !== 'none' ? { TABLE_NAME: data.table.tableName } : {}),
    JWT_ISSUER: settings.jwtIssuer,
    JWT_AUDIENCE: settings.jwtAudience,
    MAIL_FROM: settings.mailFrom,
    PUBLIC_BASE_URL: res.publicBaseUrl,
    ...(spec.media ? { MEDIA_BUCKET: data.media.bucketName } : {}),
    ...(spec.invoices ? { INVOICE_BUCKET: data.invoices.bucketName } : {}),
    ...(spec.knowledgeVectors ? { KNOWLEDGE_VECTOR_BUCKET: data.knowledgeVectors.vectorBucketName! } : {}),
    ...Object.fromEntries((spec.sends ?? []).map((q) => [`${q.toUpperCase()}_QUEUE_URL`, queues.queues[q].queueUrl])),
    ...Object.fromEntries((spec.invokes ?? []).map((f) => [functionNameSetting(f), invokedOf(res, f).functionName])),
    // Only writers name the key; a reader decrypts with the key the ciphertext names.
    ...(spec.vault || spec.tenantSecrets === true ? { VAULT_KMS_KEY_ID: res.vaultKey.keyArn } : {}),
  };
}

/** Least-privilege grants for one function, exactly as its spec reads. */
export function grantAccess(fn: LambdaFunction, spec: AccessSpec, res: PlatformResources): void {
  const { settings, data, queues } = res;
  const stack = Stack.of(fn);
  const param = (path: string) => parameterArn(stack, settings, path);

  if (spec.table !== 'none') {
    // The table and each index by name (the CDK grants `index/*`).
    const resources = [
      data.table.tableArn,
      ...TABLE_DESIGN.indexes.map((i) => `${data.table.tableArn}/index/${i.name}`),
    ];
    const actions = spec.table === 'readwrite' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : TABLE_READ_ACTIONS;
    fn.addToRolePolicy(new PolicyStatement({ actions, resources }));
  }

  for (const q of spec.sends ?? []) queues.queues[q].grant(fn, 'sqs:SendMessage');

  if (spec.media === 'readwrite') data.media.grantReadWrite(fn);
  else if (spec.media === 'read') data.media.grantRead(fn);
  else if (spec.media === 'knowledge-read') data.media.grantRead(fn, 'knowledge/*');
  // Written, then presigned for reading: a presigned GET works only while its signer may read.
  else if (spec.media === 'browser-shots')
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject'],
        resources: [data.media.arnForObjects(`${BROWSER_SHOTS_PREFIX}*`)],
      }),
    );
  // The function itself, not `grantInvoke`'s `:*` (every version and alias): only $LATEST is deployed.
  for (const f of spec.invokes ?? [])
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [invokedOf(res, f).functionArn] }),
    );
  if (spec.invoices === 'readwrite') data.invoices.grantReadWrite(fn);
  else if (spec.invoices === 'read') data.invoices.grantRead(fn);

  if (spec.knowledgeVectors) {
    // The bucket and its per-base indexes; the routes only query, the worker also writes and drops.
    const bucketArn = data.knowledgeVectors.attrVectorBucketArn;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: spec.knowledgeVectors === 'readwrite' ? KNOWLEDGE_VECTOR_WRITE_ACTIONS : KNOWLEDGE_VECTOR_READ_ACTIONS,
        resources: [bucketArn, `${bucketArn}/index/kb-*`],
      }),
    );
  }

  const readable = [
    ...(spec.verifiesTokens ? [param('auth/jwt-public-jwks')] : []),
    ...(spec.signsTokens ? [param('auth/jwt-private-jwk')] : []),
    ...(spec.internalKey ? [param('internal-api-key')] : []),
    ...(spec.providerSecrets ? [param('providers/*')] : []),
  ];
  if (readable.length) fn.addToRolePolicy(new PolicyStatement({ actions: ['ssm:GetParameter'], resources: readable }));

  if (spec.vault) {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: VAULT_SSM_ACTIONS, resources: [param('vault'), param('vault/*')] }),
    );
    res.vaultKey.grant(fn, ...VAULT_KMS_ACTIONS);
  }
  if (spec.readsVault) {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [param('vault/*')] }));
    res.vaultKey.grant(fn, 'kms:Decrypt');
  }
  if (spec.bedrock && res.settings.bedrockModels.length) {
    // Only the models the stage offers (the ones its catalog is seeded with, lib/llm-catalog-seed.ts).
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
        resources: bedrockModelArns(stack, res.settings.bedrockModels),
      }),
    );
  }
  if (spec.tenantSecrets) {
    const readOnly = spec.tenantSecrets === 'read';
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: readOnly ? ['ssm:GetParameter'] : TENANT_SECRET_ACTIONS,
        resources: [param('tenants/*')],
      }),
    );
    if (!spec.vault) res.vaultKey.grant(fn, ...(readOnly ? ['kms:Decrypt'] : VAULT_KMS_ACTIONS));
  }
  if (spec.readsVaultSources) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: VAULT_SOURCE_ACTIONS,
        resources: [param('vault-sources'), param('vault-sources/*')],
      }),
    );
  }

  if (spec.ses) {
    // SES identities are not known to the stack; the sender address is what is pinned.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: ['*'],
        conditions: { StringEquals: { 'ses:FromAddress': settings.mailFrom } },
      }),
    );
  }
}
