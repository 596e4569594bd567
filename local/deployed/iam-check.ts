import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { Authorization } from './iam-requests.ts';
import { ACCOUNT, type Json, rolePolicies, type StackTemplate, type TemplateFunction } from './template.ts';

export interface Decision extends Authorization {
  caller: string;
  allowed: boolean;
  /** Why not, when not allowed (the simulator's result or its validation errors). */
  reason?: string;
}

/** The access key id a function's process signs with: it names the function. */
export const accessKeyFor = (fn: TemplateFunction) => `ASIA${fn.id}`;

/**
 * The template's IAM, evaluated per request with iam-simulate: the calling function's role policies
 * (as synthesized), and the resource's own policy where the template gives one (queue and bucket
 * policies, the KMS key policy). Decisions are cached: a bundle repeats the same calls.
 */
export class TemplateIam {
  private readonly callers = new Map<string, { fn: TemplateFunction; principal: string; policies: Json[] }>();
  private readonly resourcePolicies = new Map<string, Json>();
  private readonly cache = new Map<string, Promise<Omit<Decision, 'caller' | keyof Authorization>>>();
  readonly decisions: Decision[] = [];

  constructor(t: StackTemplate, functions: readonly TemplateFunction[]) {
    for (const fn of functions) {
      const role = t.ref(fn.roleId);
      this.callers.set(accessKeyFor(fn), {
        fn,
        principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${fn.name}`,
        policies: rolePolicies(t, fn.roleId),
      });
    }
    for (const [, p] of t.ofType('AWS::SQS::QueuePolicy'))
      for (const q of p.Properties.Queues) {
        const id = q.Ref as string;
        this.resourcePolicies.set(t.attribute(id, 'Arn'), t.resolve(p.Properties.PolicyDocument));
      }
    for (const [, p] of t.ofType('AWS::S3::BucketPolicy'))
      this.resourcePolicies.set(`bucket:${t.resolve(p.Properties.Bucket)}`, t.resolve(p.Properties.PolicyDocument));
    for (const [id, k] of t.ofType('AWS::KMS::Key'))
      this.resourcePolicies.set(t.attribute(id, 'Arn'), t.resolve(k.Properties.KeyPolicy));
  }

  callerOf(accessKey: string | undefined): TemplateFunction | undefined {
    return accessKey ? this.callers.get(accessKey)?.fn : undefined;
  }

  private resourcePolicy(resource: string): Json | undefined {
    const bucket = /^arn:aws:s3:::([^/]+)/.exec(resource)?.[1];
    return bucket ? this.resourcePolicies.get(`bucket:${bucket}`) : this.resourcePolicies.get(resource);
  }

  async check(accessKey: string | undefined, auth: Authorization): Promise<Decision> {
    const caller = accessKey ? this.callers.get(accessKey) : undefined;
    if (!caller) {
      const d = { ...auth, caller: accessKey ?? '(unsigned)', allowed: false, reason: 'the key names no function' };
      this.decisions.push(d);
      return d;
    }
    const key = JSON.stringify([accessKey, auth]);
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.simulate(caller, auth);
      this.cache.set(key, pending);
    }
    const d = { ...auth, caller: caller.fn.name, ...(await pending) };
    this.decisions.push(d);
    return d;
  }

  private async simulate(
    caller: { principal: string; policies: Json[] },
    auth: Authorization,
  ): Promise<{ allowed: boolean; reason?: string }> {
    const resourcePolicy = this.resourcePolicy(auth.resource);
    const result = await runSimulation(
      {
        request: {
          principal: caller.principal,
          action: auth.action,
          resource: { resource: auth.resource, accountId: ACCOUNT },
          // The SDK calls AWS over TLS; the stand-ins' loopback hop is plain HTTP.
          contextVariables: {
            'aws:SecureTransport': 'true',
            'aws:PrincipalArn': caller.principal.replace(
              /^arn:aws:sts::(\d+):assumed-role\/([^/]+)\/.*$/,
              'arn:aws:iam::$1:role/$2',
            ),
            'aws:PrincipalAccount': ACCOUNT,
            ...auth.context,
          },
        },
        identityPolicies: caller.policies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (result.resultType === 'error') return { allowed: false, reason: JSON.stringify(result.errors) };
    return {
      allowed: result.overallResult === 'Allowed',
      ...(result.overallResult === 'Allowed' ? {} : { reason: result.overallResult }),
    };
  }

  denied(): Decision[] {
    return this.decisions.filter((d) => !d.allowed);
  }
}

/** One line per denial: which function, which action, on what, and why. */
export const describeDenials = (denials: readonly Decision[]) =>
  denials.map((d) => `${d.caller} may not ${d.action} on ${d.resource} (${d.reason})`).join('\n');
