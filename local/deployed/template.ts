import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: a synthesized template is untyped JSON read by path
export type Json = any;

export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

export interface CfnResource {
  Type: string;
  Properties?: Json;
  Metadata?: Json;
}

/**
 * A synthesized stack read from its cloud assembly: the parent template and its nested stacks'
 * resources (each nested parameter replaced by the value the parent passes), and what each
 * resource's physical name, URL and ARN are in the stand-ins (`physical`, filled by whoever starts
 * them). Values are resolved as CloudFormation would: Ref, Fn::GetAtt, Fn::Join, Fn::Select,
 * Fn::Split, Fn::Sub and the pseudo parameters.
 */
export class StackTemplate {
  readonly resources: Record<string, CfnResource>;
  /** Overrides of a resource's Ref or attribute, set by the stand-ins (`FnX.Arn`, `QueueY` for its Ref). */
  readonly physical = new Map<string, string>();

  constructor(
    readonly assemblyDir: string,
    readonly stackName: string,
  ) {
    const parent = JSON.parse(readFileSync(join(assemblyDir, `${stackName}.template.json`), 'utf8')) as Json;
    this.resources = { ...parent.Resources };
    for (const [id, r] of Object.entries<CfnResource>(parent.Resources)) {
      if (r.Type !== 'AWS::CloudFormation::Stack') continue;
      const file = r.Metadata?.['aws:asset:path'] as string;
      const nested = JSON.parse(readFileSync(join(assemblyDir, file), 'utf8')) as Json;
      const given = r.Properties?.Parameters ?? {};
      const substitute = (v: Json): Json => {
        if (Array.isArray(v)) return v.map(substitute);
        if (v && typeof v === 'object') {
          if (typeof v.Ref === 'string' && v.Ref in given) return given[v.Ref];
          return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x)]));
        }
        return v;
      };
      for (const [nid, nr] of Object.entries<CfnResource>(nested.Resources))
        this.resources[`${id}/${nid}`] = substitute(nr);
    }
  }

  ofType(type: string): [string, CfnResource][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  /** A name unique in this stack, as CloudFormation generates one (`<stack>-<logical id>`). */
  generatedName(id: string, max = 64): string {
    return `${this.stackName}-${id.replace(/\//g, '-')}`.slice(0, max);
  }

  ref(id: string): string {
    const set = this.physical.get(id);
    if (set !== undefined) return set;
    const r = this.resources[id];
    if (!r) throw new Error(`Ref to ${id}: no such resource`);
    switch (r.Type) {
      case 'AWS::IAM::Role':
      case 'AWS::Lambda::Function':
      case 'AWS::DynamoDB::Table':
        return this.generatedName(id);
      case 'AWS::S3::Bucket':
        return this.generatedName(id, 63).toLowerCase();
      case 'AWS::S3Vectors::VectorBucket':
        return this.attribute(id, 'VectorBucketArn');
      default:
        return this.generatedName(id);
    }
  }

  attribute(id: string, attr: string): string {
    const set = this.physical.get(`${id}.${attr}`);
    if (set !== undefined) return set;
    const r = this.resources[id];
    if (!r) throw new Error(`GetAtt ${id}.${attr}: no such resource`);
    const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) =>
      `arn:aws:${service}:${region}:${account}:${resource}`;
    switch (`${r.Type}.${attr}`) {
      case 'AWS::Lambda::Function.Arn':
        return arn('lambda', `function:${this.ref(id)}`);
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${ACCOUNT}:role/${this.ref(id)}`;
      case 'AWS::DynamoDB::Table.Arn':
        return arn('dynamodb', `table/${this.ref(id)}`);
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${this.ref(id)}`;
      case 'AWS::SQS::Queue.Arn':
        return arn('sqs', this.queueName(id));
      case 'AWS::SQS::Queue.QueueName':
        return this.queueName(id);
      case 'AWS::KMS::Key.Arn':
        return arn('kms', `key/${this.ref(id)}`);
      case 'AWS::S3Vectors::VectorBucket.VectorBucketArn':
        return arn('s3vectors', `bucket/${r.Properties.VectorBucketName}`);
      case 'AWS::Logs::LogGroup.Arn':
        return arn('logs', `log-group:/aws/lambda/${this.ref(id)}:*`);
      case 'AWS::SNS::Topic.TopicArn':
        return arn('sns', this.ref(id));
      default:
        return `${this.ref(id)}.${attr}`;
    }
  }

  queueName(id: string): string {
    const p = this.resources[id]?.Properties ?? {};
    if (p.QueueName) return this.resolve(p.QueueName) as string;
    return p.FifoQueue ? `${this.generatedName(id, 75)}.fifo` : this.generatedName(id, 80);
  }

  resolve(v: Json): Json {
    if (Array.isArray(v)) return v.map((x) => this.resolve(x));
    if (!v || typeof v !== 'object') return v;
    if (typeof v.Ref === 'string') return this.pseudo(v.Ref) ?? this.ref(v.Ref);
    if (v['Fn::GetAtt']) {
      const [id, attr] = Array.isArray(v['Fn::GetAtt']) ? v['Fn::GetAtt'] : String(v['Fn::GetAtt']).split('.');
      return this.attribute(id, attr);
    }
    if (v['Fn::Join']) {
      const [sep, parts] = v['Fn::Join'];
      return (this.resolve(parts) as string[]).join(sep);
    }
    if (v['Fn::Select']) {
      const [i, list] = v['Fn::Select'];
      return (this.resolve(list) as string[])[Number(i)];
    }
    if (v['Fn::Split']) {
      const [sep, text] = v['Fn::Split'];
      return String(this.resolve(text)).split(sep);
    }
    if (v['Fn::Sub']) {
      const [text, vars] = Array.isArray(v['Fn::Sub']) ? v['Fn::Sub'] : [v['Fn::Sub'], {}];
      return String(text).replace(/\$\{([^}]+)\}/g, (_, name: string) => {
        if (name in vars) return String(this.resolve(vars[name]));
        const [id, attr] = name.split('.');
        return attr ? this.attribute(id!, attr) : (this.pseudo(id!) ?? this.ref(id!));
      });
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.resolve(x)]));
  }

  private pseudo(name: string): string | undefined {
    return {
      'AWS::AccountId': ACCOUNT,
      'AWS::Region': REGION,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.stackName,
      'AWS::StackId': `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${this.stackName}/deployed`,
      'AWS::NoValue': undefined,
    }[name];
  }
}

/** A function of the template: where its code is, how Lambda calls it, what its role may do. */
export interface TemplateFunction {
  id: string;
  name: string;
  /** The asset folder in the cloud assembly. */
  codeDir: string;
  handler: string;
  runtime: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** The template's environment, unresolved (resolved when the process starts, so stand-ins may be named late). */
  environment: Record<string, Json>;
  roleId: string;
}

export function templateFunctions(t: StackTemplate): TemplateFunction[] {
  return t.ofType('AWS::Lambda::Function').map(([id, r]) => {
    const p = r.Properties;
    return {
      id,
      name: t.ref(id),
      codeDir: join(t.assemblyDir, r.Metadata['aws:asset:path']),
      handler: p.Handler,
      runtime: p.Runtime,
      memoryMb: p.MemorySize ?? 128,
      timeoutSeconds: p.Timeout ?? 3,
      environment: p.Environment?.Variables ?? {},
      roleId: p.Role['Fn::GetAtt'][0],
    };
  });
}

/** The identity policies of a role: its inline policies and every AWS::IAM::Policy attached to it. */
export function rolePolicies(t: StackTemplate, roleId: string): { name: string; policy: Json }[] {
  const role = t.resources[roleId]?.Properties ?? {};
  const inline = (role.Policies ?? []).map((p: Json) => ({ name: p.PolicyName, policy: t.resolve(p.PolicyDocument) }));
  const attached = t
    .ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles ?? []).some((r: Json) => r.Ref === roleId))
    .map(([id, p]) => ({ name: id, policy: t.resolve(p.Properties.PolicyDocument) }));
  if (role.ManagedPolicyArns?.length) throw new Error(`Role ${roleId} has managed policies, which are not modelled`);
  return [...inline, ...attached];
}
