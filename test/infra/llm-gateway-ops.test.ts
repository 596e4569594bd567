import { unmarshall } from '@aws-sdk/util-dynamodb';
import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { BEDROCK_MODEL_IDS, BEDROCK_MODELS, DEFAULT_BEDROCK_MODEL_IDS } from '#areas/llm-gateway/bedrock-models.ts';
import { gatewayKeys, toModel } from '#areas/llm-gateway/records.ts';
import { readSettings } from '#lib/settings.ts';
import { actionsOf, flat, resourcesOf, synthPlatform, targetId, type Json } from './synth.ts';

/**
 * The gateway's deploy-side pieces: the gateway's spend alarm and dashboard graph, and the stage's
 * Bedrock models seeded into the catalog (only when absent) with the gateway's IAM grant scoped to
 * exactly those models.
 */
let s: ReturnType<typeof synthPlatform>;
beforeAll(() => {
  s = synthPlatform();
});

const alarmNamed = (of: typeof s, name: string) =>
  of.ofType('AWS::CloudWatch::Alarm').find(([, a]) => a.Properties.AlarmName === `saas-test-${name}`)?.[1]
    .Properties as Json;

/** Each seed resource's SDK calls, the table's Ref text replaced by `TABLE`. */
function seeds(of = s) {
  const tableId = of.ofType('AWS::DynamoDB::Table')[0]![0];
  const parse = (v: Json) => JSON.parse(flat(v).replaceAll(`{Ref:${tableId}}`, 'TABLE'));
  return of.ofType('Custom::LlmModelSeed').map(([id, r]) => ({
    id,
    create: parse(r.Properties.Create),
    update: parse(r.Properties.Update),
    deletes: r.Properties.Delete,
    provider: targetId(r.Properties.ServiceToken)!,
    dependsOn: (r.DependsOn ?? []) as string[],
  }));
}
const items = (call: Json) =>
  call.parameters.TransactItems.map((t: Json) => ({ ...t.Put, Item: unmarshall(t.Put.Item) }));
const modelOf = (call: Json) => items(call)[0].Item;

const bedrockStatements = (of: typeof s, fn: string) =>
  of.statementsByFn.get(fn)!.filter((st) => actionsOf(st).some((a) => a.startsWith('bedrock:')));
const grantedModels = (of: typeof s, fn = 'llm-gateway') =>
  bedrockStatements(of, fn)
    .flatMap(resourcesOf)
    .map(flat)
    .map((arn) => arn.split('::foundation-model/')[1]);

describe('spend alarm', () => {
  it('sums the gateway total in the business namespace over one hour against 10 USD by default, on the alarm topic', () => {
    const a = alarmNamed(s, 'llm-spend');
    expect(a).toMatchObject({
      Namespace: 'saas/test',
      MetricName: 'LlmSpendTotalMicroUsd',
      Statistic: 'Sum',
      Period: 3600,
      EvaluationPeriods: 1,
      Threshold: 10_000_000,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    // The exact dimension set the gateway writes: Powertools' service plus the metric's own.
    expect(Object.fromEntries(a.Dimensions.map((d: Json) => [d.Name, d.Value]))).toEqual({
      service: 'saas',
      scope: 'gateway',
    });
    const topic = s.ofType('AWS::SNS::Topic')[0]![0];
    expect(a.AlarmActions.map(targetId)).toEqual([topic]);
    expect(a.OKActions.map(targetId)).toEqual([topic]);
    expect(a.AlarmDescription).toMatch(/docs\/operations\.md#llm-spend$/);
  });

  it('takes its threshold from the stage context (alarmLlmSpendUsdPerHour, USD) and refuses a non-number', () => {
    const tuned = synthPlatform({ alarmLlmSpendUsdPerHour: '2.5' });
    expect(alarmNamed(tuned, 'llm-spend').Threshold).toBe(2_500_000);
    const ctx = (context: Record<string, unknown>) => readSettings(new App({ context }).node).monitoring;
    expect(ctx({}).llmSpendUsdPerHour).toBe(10);
    expect(() => ctx({ alarmLlmSpendUsdPerHour: 'lots' })).toThrow(/alarmLlmSpendUsdPerHour/);
    expect(() => ctx({ alarmLlmSpendUsdPerHour: '0' })).toThrow(/alarmLlmSpendUsdPerHour/);
  });

  it('has a dashboard graph of the spend per hour by model and in total, with the alarm line', () => {
    const [, dashboard] = s.ofType('AWS::CloudWatch::Dashboard')[0]!;
    const body = JSON.parse(flat(dashboard.Properties.DashboardBody).replace(/\{Ref:[^}]+\}/g, 'X'));
    const w = body.widgets.find((x: Json) => x.properties?.title?.startsWith('LLM gateway spend per hour'));
    expect(w).toBeDefined();
    expect(w.properties.period).toBe(3600);
    const [byModel, total] = w.properties.metrics;
    expect(byModel[0].expression).toBe(
      `SEARCH('{"saas/test",service,model} MetricName="LlmSpendMicroUsd"', 'Sum', 3600)`,
    );
    expect(total.slice(0, 6)).toEqual(['saas/test', 'LlmSpendTotalMicroUsd', 'scope', 'gateway', 'service', 'saas']);
    expect(w.properties.annotations.horizontal[0].value).toBe(10_000_000);
  });
});

describe('Bedrock catalog seed', () => {
  it('by default seeds one chat and one embedding model, one custom resource each', () => {
    const all = seeds();
    expect(all.map((x) => modelOf(x.create).providerModel)).toEqual([...DEFAULT_BEDROCK_MODEL_IDS]);
    expect(all.map((x) => modelOf(x.create).kind).sort()).toEqual(['chat', 'embedding']);
  });

  it('writes exactly the two items of a new catalog entry, each only when absent, and ignores an entry that exists', () => {
    for (const seed of seeds()) {
      const { create } = seed;
      expect(create).toMatchObject({
        service: 'DynamoDB',
        action: 'TransactWriteItems',
        ignoreErrorCodesMatching: 'TransactionCanceledException',
      });
      const [model, claim] = items(create);
      for (const put of [model, claim]) {
        expect(put.TableName).toBe('TABLE');
        expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
      }
      const def = BEDROCK_MODELS.find((m) => m.bedrockId === model.Item.providerModel)!;
      expect({ pk: model.Item.pk, sk: model.Item.sk }).toEqual(gatewayKeys.model(def.catalogId));
      // What the catalog reader makes of it: the full entry, active, priced, no secret.
      expect(toModel(model.Item)).toEqual({
        id: def.catalogId,
        name: def.name,
        provider: 'bedrock',
        providerModel: def.bedrockId,
        kind: def.kind,
        inputPricePerMillion: def.inputPricePerMillion,
        outputPricePerMillion: def.outputPricePerMillion,
        contextWindow: def.contextWindow,
        fallbackModelIds: [],
        isActive: true,
        baseUrl: null,
        apiKeySecret: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      });
      expect(claim.Item).toEqual({ ...gatewayKeys.modelName(def.name), modelId: def.catalogId });
      expect(create.physicalResourceId).toEqual({ id: `llm-model-${def.catalogId}` });
      // A redeploy with a changed seed tries again, under the same condition; removing it deletes nothing.
      expect(seed.update).toEqual(create);
      expect(seed.deletes).toBeUndefined();
    }
  });

  it('lets each seed put only its own two items, on the table only', () => {
    const tableId = s.ofType('AWS::DynamoDB::Table')[0]![0];
    for (const seed of seeds()) {
      const name = modelOf(seed.create).name as string;
      const policyId = seed.dependsOn.find((d) => s.resources[d]?.Type === 'AWS::IAM::Policy')!;
      const statements: Json[] = s.resources[policyId].Properties.PolicyDocument.Statement;
      expect(statements).toEqual([
        {
          Effect: 'Allow',
          Action: 'dynamodb:PutItem',
          Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
          Condition: {
            'ForAllValues:StringEquals': {
              'dynamodb:LeadingKeys': [gatewayKeys.models(), gatewayKeys.modelName(name).pk],
            },
          },
        },
      ]);
    }
  });

  it('runs in a provider set up like the app functions: own log group, no managed policy, traced, no npm install', () => {
    const [seed] = seeds();
    const fn = s.resources[seed!.provider];
    expect(fn.Type).toBe('AWS::Lambda::Function');
    expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    expect(fn.Properties.LoggingConfig.LogGroup).toBeDefined();
    const role = s.resources[targetId(fn.Properties.Role)!];
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const roleId = targetId(fn.Properties.Role)!;
    const own = s
      .ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Json[]);
    const logs = own.filter((st) => actionsOf(st).some((a) => a.startsWith('logs:')));
    expect(logs.map((st) => [actionsOf(st).sort(), resourcesOf(st).map(targetId)])).toEqual([
      [['logs:CreateLogStream', 'logs:PutLogEvents'], [targetId(fn.Properties.LoggingConfig.LogGroup)]],
    ]);
    // Every other statement on that role is a seed's PutItem (checked above) or X-Ray.
    for (const st of own.filter((x) => !logs.includes(x)))
      expect(
        actionsOf(st).every((a) => a === 'dynamodb:PutItem' || a.startsWith('xray:Put')),
        flat(st.Action),
      ).toBe(true);
    for (const x of seeds()) expect(s.resources[x.id].Properties.InstallLatestAwsSdk).toBe(false);
  });

  it('follows the stage list (bedrockModels): fallbacks only among the offered, the same models granted', () => {
    const ids = ['anthropic.claude-3-7-sonnet-20250219-v1:0', 'amazon.nova-pro-v1:0', 'amazon.nova-lite-v1:0'];
    const tuned = synthPlatform({ bedrockModels: ids.join(',') });
    const seeded = seeds(tuned).map((x) => modelOf(x.create));
    expect(seeded.map((m) => m.providerModel)).toEqual(ids);
    const idOf = (bedrockId: string) => BEDROCK_MODELS.find((m) => m.bedrockId === bedrockId)!.catalogId;
    // Sonnet falls back to Haiku then Nova Pro; Haiku is not offered, so only Nova Pro remains.
    expect(seeded[0]!.fallbackModelIds).toEqual([idOf('amazon.nova-pro-v1:0')]);
    expect(seeded[1]!.fallbackModelIds).toEqual([idOf('amazon.nova-lite-v1:0')]);
    expect(seeded[2]!.fallbackModelIds).toEqual([]);
    for (const fn of ['llm-gateway', 'llm-gateway-stream', 'agent-runtime'])
      expect(grantedModels(tuned, fn)).toEqual(ids);
  });

  it('offers nothing with an empty list: no seed and no Bedrock grant; an unknown id stops the synth naming it', () => {
    const none = synthPlatform({ bedrockModels: '' });
    expect(seeds(none)).toEqual([]);
    expect(bedrockStatements(none, 'llm-gateway')).toEqual([]);
    const settings = (bedrockModels: unknown) => readSettings(new App({ context: { bedrockModels } }).node);
    expect(() => settings('amazon.nova-lite-v1:0,meta.llama9')).toThrow(/Unknown Bedrock model "meta.llama9"/);
  });

  it('keeps the parent stack far below the 500-resource limit with every known model seeded', () => {
    const everything = synthPlatform({ bedrockModels: BEDROCK_MODEL_IDS.join(',') });
    expect(seeds(everything)).toHaveLength(BEDROCK_MODEL_IDS.length);
    const parent = Object.keys(everything.template.toJSON().Resources).length;
    const base = Object.keys(synthPlatform({ bedrockModels: '' }).template.toJSON().Resources).length;
    // Per model: the custom resource and its policy; once: the provider, its role, policy and log group.
    expect(parent - base).toBe(2 * BEDROCK_MODEL_IDS.length + 4);
    expect(parent).toBeLessThan(450);
  });
});

describe('Bedrock grant', () => {
  it('is exactly the seeded models, by default', () => {
    const seeded = seeds().map((x) => modelOf(x.create).providerModel);
    expect(grantedModels(s)).toEqual(seeded);
    for (const arn of bedrockStatements(s, 'llm-gateway').flatMap(resourcesOf).map(flat))
      expect(arn).toMatch(/^arn:\{Ref:AWS::Partition\}:bedrock:\{Ref:AWS::Region\}::foundation-model\//);
  });
});
