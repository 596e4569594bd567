import { ACCOUNT, type Json, REGION } from './template.ts';

/** One authorization AWS makes for a request: an action on a resource, with its condition keys. */
export interface Authorization {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

export interface WireRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const arn = (service: string, resource: string, region = REGION) =>
  `arn:aws:${service}:${region}:${ACCOUNT}:${resource}`;
const header = (req: WireRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};
const json = (req: WireRequest): Record<string, unknown> => {
  const text = req.body.toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
};
const target = (req: WireRequest) => (header(req, 'x-amz-target') ?? '').split('.').pop() ?? '';

/** The access key id a request is signed with (header or presigned query). */
export function accessKeyOf(req: WireRequest): string | undefined {
  const auth = header(req, 'authorization') ?? '';
  const fromHeader = /Credential=([^/,\s]+)\//.exec(auth)?.[1];
  if (fromHeader) return fromHeader;
  const q = new URL(req.url, 'http://x').searchParams.get('X-Amz-Credential');
  return q?.split('/')[0];
}

type Item = Record<string, Record<string, unknown>>;

/** DynamoDB: the operation from X-Amz-Target; transactions are authorized per item; the leading keys from each key. */
function dynamodb(req: WireRequest, partitionKey: string): Authorization[] {
  const op = target(req);
  const body = json(req) as Json;
  const table = (name: string, index?: string) => arn('dynamodb', `table/${name}${index ? `/index/${index}` : ''}`);
  const leading = (items: (Item | undefined)[]): Record<string, string[]> => {
    const keys = items.flatMap((i) => (i?.[partitionKey]?.S !== undefined ? [String(i[partitionKey]!.S)] : []));
    return keys.length ? { 'dynamodb:LeadingKeys': [...new Set(keys)] } : {};
  };
  const one = (action: string, p: Json): Authorization => ({
    action: `dynamodb:${action}`,
    resource: table(p.TableName, p.IndexName),
    context: leading([p.Key ?? p.Item]),
  });
  switch (op) {
    case 'TransactWriteItems':
      return (body.TransactItems as Record<string, Json>[]).map((t) => {
        const [kind, p] = Object.entries(t)[0]!;
        const action = {
          Put: 'PutItem',
          Update: 'UpdateItem',
          Delete: 'DeleteItem',
          ConditionCheck: 'ConditionCheckItem',
        }[kind];
        return one(action ?? kind, p);
      });
    case 'TransactGetItems':
      return (body.TransactItems as { Get: Json }[]).map((t) => one('GetItem', t.Get));
    case 'BatchGetItem':
      return Object.entries(body.RequestItems as Record<string, { Keys: Item[] }>).map(([name, r]) => ({
        action: 'dynamodb:BatchGetItem',
        resource: table(name),
        context: leading(r.Keys),
      }));
    case 'BatchWriteItem':
      return Object.entries(
        body.RequestItems as Record<string, { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]>,
      ).map(([name, writes]) => ({
        action: 'dynamodb:BatchWriteItem',
        resource: table(name),
        context: leading(writes.map((w) => w.PutRequest?.Item ?? w.DeleteRequest?.Key)),
      }));
    default:
      return [one(op, body)];
  }
}

/** S3, path-style: the action from the method, the sub-resource and whether a key is named. */
function s3(req: WireRequest): Authorization[] {
  const url = new URL(req.url, 'http://x');
  const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
  const key = decodeURIComponent(rest.join('/'));
  const q = url.searchParams;
  const object = (action: string, k = key): Authorization => ({
    action: `s3:${action}`,
    resource: `arn:aws:s3:::${bucket}/${k}`,
    context: {},
  });
  const onBucket = (action: string, context: Record<string, string> = {}): Authorization[] => [
    { action: `s3:${action}`, resource: `arn:aws:s3:::${bucket}`, context },
  ];
  if (!bucket) return [{ action: 's3:ListAllMyBuckets', resource: '*', context: {} }];
  const m = req.method;
  if (!key) {
    if (m === 'POST' && q.has('delete'))
      return [...req.body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((k) => object('DeleteObject', k[1]));
    if (m === 'GET' && q.has('uploads')) return onBucket('ListBucketMultipartUploads');
    if (m === 'GET' && q.has('versions')) return onBucket('ListBucketVersions');
    if (m === 'GET' || m === 'HEAD')
      return onBucket('ListBucket', q.has('prefix') ? { 's3:prefix': q.get('prefix')! } : {});
    if (m === 'PUT') return onBucket('CreateBucket');
    if (m === 'DELETE') return onBucket('DeleteBucket');
  }
  if (m === 'GET' || m === 'HEAD') {
    if (q.has('uploadId')) return [object('ListMultipartUploadParts')];
    if (q.has('tagging')) return [object('GetObjectTagging')];
    return [object(q.has('versionId') ? 'GetObjectVersion' : 'GetObject')];
  }
  if (m === 'PUT') {
    const source = header(req, 'x-amz-copy-source');
    if (q.has('tagging')) return [object('PutObjectTagging')];
    if (!source) return [object('PutObject')];
    const [srcBucket, ...srcKey] = decodeURIComponent(source.replace(/^\//, '').split('?')[0]!).split('/');
    return [
      object('PutObject'),
      { action: 's3:GetObject', resource: `arn:aws:s3:::${srcBucket}/${srcKey.join('/')}`, context: {} },
    ];
  }
  if (m === 'POST') return [object('PutObject')];
  if (m === 'DELETE') {
    if (q.has('uploadId')) return [object('AbortMultipartUpload')];
    return [object(q.has('versionId') ? 'DeleteObjectVersion' : 'DeleteObject')];
  }
  return [object(m)];
}

/** SQS, JSON or Query protocol: the queue from its URL (`/<account>/<name>`); batches as their single action. */
function sqs(req: WireRequest): Authorization[] {
  const isJson = !!header(req, 'x-amz-target');
  const form = isJson ? undefined : new URLSearchParams(req.body.toString('utf8'));
  const body = isJson ? json(req) : undefined;
  const op = isJson ? target(req) : (form!.get('Action') ?? '');
  const queueUrl = String(body?.QueueUrl ?? form?.get('QueueUrl') ?? '');
  const queueName = String(body?.QueueName ?? form?.get('QueueName') ?? '');
  const name = queueUrl ? new URL(queueUrl).pathname.split('/').pop()! : queueName;
  const action = op.replace(/Batch$/, '');
  return [{ action: `sqs:${action}`, resource: name ? arn('sqs', name) : '*', context: {} }];
}

const parameterArn = (name: string) => arn('ssm', `parameter/${name.replace(/^\//, '')}`);

/** SSM Parameter Store: each parameter (or the path) by ARN. */
function ssm(req: WireRequest): Authorization[] {
  const op = target(req);
  const body = json(req) as { Name?: string; Names?: string[]; Path?: string };
  const names = body.Names ?? (body.Name ? [body.Name] : body.Path ? [body.Path] : []);
  return names.map((n) => ({ action: `ssm:${op}`, resource: parameterArn(n), context: {} }));
}

/** What KMS authorizes when SSM encrypts or decrypts a SecureString with a customer key on the caller's behalf. */
export function kmsViaSsm(action: 'Encrypt' | 'Decrypt', keyArn: string, parameterName: string): Authorization {
  return {
    action: `kms:${action}`,
    resource: keyArn,
    context: {
      'kms:ViaService': `ssm.${REGION}.amazonaws.com`,
      'kms:EncryptionContext:PARAMETER_ARN': parameterArn(parameterName),
    },
  };
}

/** SES (v1, Query protocol): the sending identity, and the sender address the role's condition pins. */
function ses(req: WireRequest): Authorization[] {
  const form = new URLSearchParams(req.body.toString('utf8'));
  const op = form.get('Action') ?? '';
  const source = form.get('Source') ?? '';
  const address = /<([^>]+)>/.exec(source)?.[1] ?? source;
  return [
    {
      action: `ses:${op}`,
      resource: arn('ses', `identity/${address}`),
      context: address ? { 'ses:FromAddress': address } : {},
    },
  ];
}

/** Bedrock Runtime: the model from the path; a stream is its own action. */
function bedrock(req: WireRequest): Authorization[] {
  const [, model = '', op = ''] = /^\/model\/([^/]+)\/([^/?]+)/.exec(req.url) ?? [];
  const modelId = decodeURIComponent(model);
  const action =
    op === 'converse-stream' || op === 'invoke-with-response-stream' ? 'InvokeModelWithResponseStream' : 'InvokeModel';
  const resource = modelId.startsWith('arn:')
    ? modelId
    : arn('bedrock', `foundation-model/${modelId}`).replace(`:${ACCOUNT}:`, '::');
  return [{ action: `bedrock:${action}`, resource, context: {} }];
}

/** S3 Vectors: the operation from the path, the index (or bucket) from the body; a filtered or metadata query also reads. */
function s3vectors(req: WireRequest): Authorization[] {
  const op = new URL(req.url, 'http://x').pathname.slice(1);
  const body = json(req) as {
    vectorBucketName?: string;
    indexName?: string;
    filter?: unknown;
    returnMetadata?: boolean;
  };
  const bucket = arn('s3vectors', `bucket/${body.vectorBucketName}`);
  const index = body.indexName ? `${bucket}/index/${body.indexName}` : bucket;
  const resource = op === 'ListIndexes' || op === 'GetVectorBucket' ? bucket : index;
  const out: Authorization[] = [{ action: `s3vectors:${op}`, resource, context: {} }];
  if (op === 'QueryVectors' && (body.filter || body.returnMetadata))
    out.push({ action: 's3vectors:GetVectors', resource, context: {} });
  return out;
}

/** Lambda Invoke: the function from the path. */
function lambda(req: WireRequest): Authorization[] {
  const name = decodeURIComponent(/\/functions\/([^/]+)\//.exec(req.url)?.[1] ?? '');
  const resource = name.startsWith('arn:') ? name : arn('lambda', `function:${name}`);
  return [{ action: 'lambda:InvokeFunction', resource, context: {} }];
}

export type ServiceName = 'dynamodb' | 's3' | 'sqs' | 'ssm' | 'ses' | 'bedrock-runtime' | 's3vectors' | 'lambda';

/** What a request asks AWS to authorize, derived from its protocol alone. */
export function authorizationsOf(
  service: ServiceName,
  req: WireRequest,
  opts: { partitionKey: string },
): Authorization[] {
  switch (service) {
    case 'dynamodb':
      return dynamodb(req, opts.partitionKey);
    case 's3':
      return s3(req);
    case 'sqs':
      return sqs(req);
    case 'ssm':
      return ssm(req);
    case 'ses':
      return ses(req);
    case 'bedrock-runtime':
      return bedrock(req);
    case 's3vectors':
      return s3vectors(req);
    case 'lambda':
      return lambda(req);
  }
}
