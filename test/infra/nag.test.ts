import { Validations, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { API_TIMEOUT_SECONDS, type PlatformStack } from '#lib/platform-stack.ts';
import { appFunction, entryOf } from '#lib/functions.ts';
import { API_GROUPS, type GroupName } from '#shared/routes/groups.ts';
import { platformStack } from './synth.ts';

/** Every finding of both packs that is not acknowledged, as `rule at construct path`. */
function unacknowledged(stack: Stack): string[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack
      .validateScope(stack)
      .violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`)),
  );
}

/** Where each acknowledgement was recorded: construct path -> acknowledged ids with their reasons. */
function acknowledgements(root: IConstruct): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        out.set(c.node.path, { ...out.get(c.node.path), ...(entry.data as Record<string, string>) });
    }
  }
  return out;
}

/**
 * A function for every declared API group that has none yet (the areas still to build), with its
 * own grants, on an existing entry: what the stack will hold once those areas have routes.
 */
function addFutureGroups(stack: PlatformStack) {
  const future = (Object.keys(API_GROUPS) as GroupName[]).filter(
    (g) => g !== 'local-providers' && !stack.functions.has(g),
  );
  for (const group of future) {
    const spec = API_GROUPS[group];
    const opts = {
      description: spec.description,
      access: { ...spec, verifiesTokens: true },
      defaultTimeoutSeconds: API_TIMEOUT_SECONDS,
      entry: entryOf('fallback'),
    };
    stack.functions.set(group, appFunction(stack, group, opts, stack.resources));
  }
  return future;
}

describe('cdk-nag (AwsSolutions and Serverless packs)', () => {
  it('reports nothing that is not acknowledged', () => {
    expect(unacknowledged(platformStack().stack)).toEqual([]);
  });

  it('reports nothing with an alarm e-mail, in prod', () => {
    expect(unacknowledged(platformStack({ stage: 'prod', alarmEmail: 'ops@example.com' }).stack)).toEqual([]);
  });

  it('reports nothing once every declared group has a function: the acknowledgements cover future areas', () => {
    const { stack } = platformStack();
    const added = addFutureGroups(stack);
    expect(added).toEqual([]);
    expect(unacknowledged(stack)).toEqual([]);
  });

  it('acknowledges on the stack, the API, the dead-letter queues or the alarm topic only, each with a one-line reason', () => {
    const { stack } = platformStack();
    const found = acknowledgements(stack);
    expect([...found.keys()].sort()).toEqual(
      [
        'Platform',
        'Platform/Http',
        'Platform/Monitoring/Alarms',
        'Platform/Queues/email-dlq',
        'Platform/Queues/indexing-dlq',
        'Platform/Queues/jobs-dlq',
        'Platform/Queues/webhooks-dlq',
        'Platform/Queues/channels-dlq',
        'Platform/Queues/turns-dlq',
        'Platform/Queues/deliveries-dlq',
        'Platform/Queues/usage-dlq',
      ].sort(),
    );
    for (const [path, rules] of found) {
      for (const [id, reason] of Object.entries(rules)) {
        expect(id, path).toMatch(/(AwsSolutions|Serverless)-/);
        expect(reason.length, `${path} ${id}`).toBeGreaterThan(30);
        expect(reason, `${path} ${id}`).not.toContain('\n');
      }
    }
  });

  it('fixes what was worth fixing instead of acknowledging it', () => {
    const ids = [...acknowledgements(platformStack().stack).values()].flatMap((rules) => Object.keys(rules)).join(' ');
    for (const fixed of ['IAM4', 'L1', 'LambdaLatestVersion', 'LambdaTracing', 'AwsSolutions-S1', '/index/*'])
      expect(ids).not.toContain(fixed);
  });
});
