import { App, NestedStack, type CfnResource } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { PlatformStack } from '#lib/platform-stack.ts';
import { readSettings } from '#lib/settings.ts';
import type { RouteDef } from '#shared/routes/types.ts';
import { tempDir } from '#test/support/temp-dir.ts';

// biome-ignore lint/suspicious/noExplicitAny: a synthesized template is untyped JSON the infra tests read by path
export type Json = any;

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: Json;
  Condition?: Json;
}

/** The group whose spec a function follows: a streaming front door (`system-stream`) follows its group's. */
export const groupOfFn = (name: string) => name.replace(/-stream$/, '');

const TEST_CONTEXT = { appName: 'saas', stage: 'test', corsOrigins: 'https://app.example.test' };

/**
 * The stack without bundling (`aws:cdk:bundling-stacks: []`): the template is the same, only the
 * code assets are placeholders. The CDK's built-in CloudFormation validation (a WebAssembly
 * engine, ~10 s per file) is left to `cdk synth`.
 */
export function platformStack(context: Record<string, unknown> = {}, routes?: readonly RouteDef[]) {
  const app = new App({
    outdir: tempDir('cdk.out-'),
    context: { 'aws:cdk:bundling-stacks': [], ...TEST_CONTEXT, ...context },
    builtinCloudFormationValidation: false,
  });
  return { app, stack: new PlatformStack(app, 'Platform', { settings: readSettings(app.node), routes }) };
}

/**
 * The resources of the stack's nested stacks (the HTTP API routes), with each parameter the parent
 * passes replaced by the parent's value, so a route's integration names the parent's function as a
 * resource of the parent would.
 */
function nestedResources(stack: PlatformStack, parent: Template): Record<string, Json> {
  const parentResources: Record<string, Json> = parent.toJSON().Resources;
  const out: Record<string, Json> = {};
  for (const child of stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack)) {
    const id = stack.getLogicalId(child.nestedStackResource as CfnResource);
    const given: Record<string, Json> = parentResources[id]?.Properties?.Parameters ?? {};
    const resolve = (v: Json): Json => {
      if (Array.isArray(v)) return v.map(resolve);
      if (v && typeof v === 'object') {
        if (typeof v.Ref === 'string' && v.Ref in given) return given[v.Ref];
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
      }
      return v;
    };
    Object.assign(out, resolve(Template.fromStack(child).toJSON().Resources));
  }
  return out;
}

/** The stack synthesized, with lookups by function name. */
export function synthPlatform(context: Record<string, unknown> = {}, routes?: readonly RouteDef[]) {
  const { app, stack } = platformStack(context, routes);
  const template = Template.fromStack(stack);
  const resources: Record<string, Json> = { ...template.toJSON().Resources, ...nestedResources(stack, template) };

  /** Function logical id by name (`catalog`, `fallback`, `email-worker`). */
  const fnIds = new Map<string, string>();
  for (const [name, fn] of stack.functions) fnIds.set(name, stack.getLogicalId(fn.node.defaultChild as CfnFunction));
  const nameOfFn = new Map([...fnIds].map(([name, id]) => [id, name]));

  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  /** IAM statements attached to each function's role, by function name. */
  const statementsByFn = new Map<string, Statement[]>();
  const roleToFn = new Map<string, string>();
  for (const [name, id] of fnIds) {
    const role = resources[id].Properties.Role['Fn::GetAtt'][0] as string;
    roleToFn.set(role, name);
    statementsByFn.set(name, []);
  }
  for (const [, policy] of ofType('AWS::IAM::Policy')) {
    for (const roleRef of policy.Properties.Roles) {
      const fn = roleToFn.get(roleRef.Ref);
      if (fn) statementsByFn.get(fn)!.push(...policy.Properties.PolicyDocument.Statement);
    }
  }

  return { app, stack, template, resources, fnIds, nameOfFn, ofType, statementsByFn };
}

export const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: Statement): Json[] =>
  s.Resource === undefined ? [] : Array.isArray(s.Resource) ? s.Resource : [s.Resource];

/** A CloudFormation value flattened to text: `Fn::Join` parts joined, `Ref`/`GetAtt` as `{Ref:X}`/`{X.Attr}`. */
export function flat(value: Json): string {
  if (typeof value === 'string') return value;
  if (value?.Ref) return `{Ref:${value.Ref}}`;
  if (value?.['Fn::GetAtt']) return `{${value['Fn::GetAtt'].join('.')}}`;
  if (value?.['Fn::Join']) return value['Fn::Join'][1].map(flat).join(value['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** The logical id a `Ref` or `Fn::GetAtt` points at. */
export function targetId(value: Json): string | undefined {
  return value?.Ref ?? value?.['Fn::GetAtt']?.[0];
}
