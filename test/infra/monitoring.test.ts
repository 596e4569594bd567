import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '#lib/settings.ts';
import { TABLE_OPERATIONS } from '#lib/signals.ts';
import { BUSINESS_METRICS } from '#shared/runtime/metric-catalog.ts';
import { deployedRoutes } from '#api/routes.ts';
import { INVOKED, SCHEDULED, WORKERS } from '#shared/routes/groups.ts';
import { QUEUE_NAMES } from '#lib/queues.ts';
import { flat, synthPlatform, targetId, type Json } from './synth.ts';

let s: ReturnType<typeof synthPlatform>;
beforeAll(() => {
  s = synthPlatform();
});

const alarms = (of = s) =>
  new Map(of.ofType('AWS::CloudWatch::Alarm').map(([, a]) => [a.Properties.AlarmName as string, a.Properties as Json]));
const alarm = (name: string, of = s) => {
  const found = alarms(of).get(`saas-test-${name}`);
  expect(found, name).toBeDefined();
  return found!;
};
const topicId = (of = s) => of.ofType('AWS::SNS::Topic')[0]![0];
const dims = (metric: Json) =>
  Object.fromEntries((metric.Dimensions ?? []).map((d: Json) => [d.Name, targetId(d.Value) ?? d.Value]));
/** The MetricStat of each id of a math alarm. */
const statsOf = (a: Json) =>
  Object.fromEntries(a.Metrics.filter((m: Json) => m.MetricStat).map((m: Json) => [m.Id, m.MetricStat]));
const expressionOf = (a: Json) =>
  a.Metrics.find((m: Json) => m.Expression && m.ReturnData !== false).Expression as string;

describe('alarm topic', () => {
  it('is always created, TLS-only, open to this deployment’s alarms, and has no subscription without alarmEmail', () => {
    expect(s.ofType('AWS::SNS::Topic')).toHaveLength(1);
    expect(s.ofType('AWS::SNS::Subscription')).toHaveLength(0);
    const [, policy] = s.ofType('AWS::SNS::TopicPolicy')[0]!;
    const statements: Json[] = policy.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const allow = statements.find((st) => st.Effect === 'Allow')!;
    expect(allow).toMatchObject({ Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' } });
    expect(flat(allow.Condition.ArnLike['aws:SourceArn'])).toMatch(
      /:cloudwatch:\{Ref:AWS::Region\}:\{Ref:AWS::AccountId\}:alarm:saas-test-\*$/,
    );
  });

  it('subscribes each address of alarmEmail by e-mail', () => {
    const withEmail = synthPlatform({ alarmEmail: 'ops@example.com, oncall@example.org' });
    const subs = withEmail.ofType('AWS::SNS::Subscription').map(([, sub]) => sub.Properties);
    expect(subs.map((p) => [p.Protocol, p.Endpoint])).toEqual([
      ['email', 'ops@example.com'],
      ['email', 'oncall@example.org'],
    ]);
    for (const p of subs) expect(targetId(p.TopicArn)).toBe(topicId(withEmail));
  });

  it('fails the synth on an empty or malformed alarmEmail, saying which value is wrong', () => {
    const settings = (alarmEmail: unknown) => readSettings(new App({ context: { alarmEmail } }).node);
    expect(() => settings('')).toThrow(/alarmEmail is empty/);
    expect(() => settings(' , ')).toThrow(/alarmEmail is empty/);
    expect(() => settings('ops-at-example.com')).toThrow(/alarmEmail must be e-mail addresses.*"ops-at-example.com"/);
    expect(() => settings('ops@example.com,ops@example')).toThrow(/"ops@example"/);
    expect(() => settings('ops@example.com;dev@example.com')).toThrow(/not an address/);
    expect(settings('ops@example.com').monitoring.alarmEmails).toEqual(['ops@example.com']);
  });

  it('takes thresholds from context, with the documented defaults', () => {
    const ctx = (context: Record<string, unknown>) => readSettings(new App({ context }).node).monitoring;
    expect(ctx({})).toEqual({
      alarmEmails: [],
      functionErrorRatePercent: 1,
      api5xxRatePercent: 1,
      apiP99LatencyMs: 3000,
      llmSpendUsdPerHour: 10,
    });
    expect(
      ctx({ alarmFunctionErrorRatePercent: '2.5', alarmApi5xxRatePercent: '5', alarmApiP99LatencyMs: '1500' }),
    ).toMatchObject({
      functionErrorRatePercent: 2.5,
      api5xxRatePercent: 5,
      apiP99LatencyMs: 1500,
    });
    expect(() => ctx({ alarmApiP99LatencyMs: 'fast' })).toThrow(/alarmApiP99LatencyMs/);
  });
});

describe('alarms', () => {
  it('all notify the topic when they fire and when they clear, over one 5-minute period (spend: one hour), missing data not breaching', () => {
    const all = [...alarms().values()];
    expect(all.length).toBe(2 * s.fnIds.size + Object.keys(INVOKED).length + 2 + QUEUE_NAMES.length + 2 + 1);
    for (const a of all) {
      expect(a.AlarmActions.map(targetId), a.AlarmName).toEqual([topicId()]);
      expect(a.OKActions.map(targetId), a.AlarmName).toEqual([topicId()]);
      expect(a.EvaluationPeriods, a.AlarmName).toBe(1);
      expect(a.TreatMissingData, a.AlarmName).toBe('notBreaching');
      expect(a.AlarmDescription, a.AlarmName).toMatch(/docs\/operations\.md#[a-z0-9-]+$/);
      for (const stat of a.Metrics ? Object.values(statsOf(a)) : [a])
        expect((stat as Json).Period, a.AlarmName).toBe(a.AlarmName === 'saas-test-llm-spend' ? 3600 : 300);
    }
  });

  it('every invoked function: p99 duration above 90 % of its timeout (its caller is about to give up)', () => {
    for (const [name, spec] of Object.entries(INVOKED)) {
      const a = alarm(`fn-${name}-duration`);
      expect(a).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Threshold: spec.timeoutSeconds * 900,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      expect(dims(a)).toEqual({ FunctionName: s.fnIds.get(name) });
    }
  });

  it('every worker and scheduled function: errors > 0', () => {
    for (const name of [...Object.keys(WORKERS), ...Object.keys(SCHEDULED)]) {
      const a = alarm(`fn-${name}-errors`);
      expect(a).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      expect(dims(a)).toEqual({ FunctionName: s.fnIds.get(name) });
    }
  });

  it('every API function (each deployed group and the fallback): error rate > 1 %, from Errors / Invocations', () => {
    const apiFns = [...s.fnIds.keys()].filter((n) => !(n in WORKERS) && !(n in SCHEDULED));
    const streaming = deployedRoutes.filter((r) => r.transport === 'stream').map((r) => `${r.group}-stream`);
    expect(apiFns.sort()).toEqual(
      [...new Set([...deployedRoutes.map((r) => r.group), 'fallback', ...streaming, ...Object.keys(INVOKED)])].sort(),
    );
    for (const name of apiFns) {
      const a = alarm(`fn-${name}-error-rate`);
      expect(a).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanThreshold' });
      const stats = Object.values(statsOf(a)) as Json[];
      expect(stats.map((st) => st.Metric.MetricName).sort()).toEqual(['Errors', 'Invocations']);
      for (const st of stats) {
        expect(st).toMatchObject({ Stat: 'Sum', Period: 300 });
        expect(dims(st.Metric)).toEqual({ FunctionName: s.fnIds.get(name) });
      }
      const [errors, invocations] = ['Errors', 'Invocations'].map(
        (m) => Object.entries(statsOf(a)).find(([, st]) => (st as Json).Metric.MetricName === m)![0],
      );
      expect(expressionOf(a)).toBe(`IF(${invocations} > 0, 100 * ${errors} / ${invocations}, 0)`);
    }
  });

  it('every function: throttles > 0', () => {
    for (const [name, id] of s.fnIds) {
      const a = alarm(`fn-${name}-throttles`);
      expect(a).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      expect(dims(a)).toEqual({ FunctionName: id });
    }
  });

  it('the HTTP API: 5xx rate > 1 % and p99 latency > 3000 ms', () => {
    const apiId = s.ofType('AWS::ApiGatewayV2::Api')[0]![0];
    const rate = alarm('api-5xx-rate');
    expect(rate).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanThreshold' });
    const stats = statsOf(rate);
    expect(
      Object.values(stats).map((st: Json) => [
        st.Metric.Namespace,
        st.Metric.MetricName,
        st.Stat,
        dims(st.Metric).ApiId,
      ]),
    ).toEqual([
      ['AWS/ApiGateway', '5xx', 'Sum', apiId],
      ['AWS/ApiGateway', 'Count', 'Sum', apiId],
    ]);
    expect(expressionOf(rate)).toMatch(/^IF\(\w+ > 0, 100 \* \w+ \/ \w+, 0\)$/);

    const latency = alarm('api-p99-latency');
    expect(latency).toMatchObject({ Threshold: 3000, ComparisonOperator: 'GreaterThanThreshold' });
    const [stat] = Object.values(statsOf(latency)) as Json[];
    expect([stat!.Metric.MetricName, stat!.Stat, dims(stat!.Metric).ApiId]).toEqual(['Latency', 'p99', apiId]);
  });

  it('thresholds follow the context values', () => {
    const tuned = synthPlatform({
      alarmFunctionErrorRatePercent: '5',
      alarmApi5xxRatePercent: '2',
      alarmApiP99LatencyMs: '800',
    });
    expect(alarm('fn-catalog-error-rate', tuned).Threshold).toBe(5);
    expect(alarm('api-5xx-rate', tuned).Threshold).toBe(2);
    expect(alarm('api-p99-latency', tuned).Threshold).toBe(800);
  });

  it('every dead-letter queue: a visible message (>= 1) is an incident', () => {
    const dlqs = s
      .ofType('AWS::SQS::Queue')
      .filter(([, q]) => !q.Properties.RedrivePolicy)
      .map(([id]) => id);
    expect(dlqs).toHaveLength(QUEUE_NAMES.length);
    const watched = QUEUE_NAMES.map((q) => {
      const a = alarm(`dlq-${q}`);
      expect(a).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(a.Dimensions[0].Value['Fn::GetAtt'][1]).toBe('QueueName');
      return dims(a).QueueName;
    });
    expect(watched.sort()).toEqual(dlqs.sort());
  });

  it('the table: throttled requests > 0 and system errors > 0, summed over every operation the functions use', () => {
    const tableId = s.ofType('AWS::DynamoDB::Table')[0]![0];
    for (const [name, metric] of [
      ['table-throttles', 'ThrottledRequests'],
      ['table-system-errors', 'SystemErrors'],
    ]) {
      const a = alarm(name!);
      expect(a).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
      const stats = Object.values(statsOf(a)) as Json[];
      expect(stats.length).toBeLessThanOrEqual(10);
      expect(stats.map((st) => dims(st.Metric).Operation).sort()).toEqual([...TABLE_OPERATIONS].sort());
      for (const st of stats) {
        expect(st.Metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metric });
        expect(dims(st.Metric).TableName).toBe(tableId);
        expect(st.Stat).toBe('Sum');
      }
      expect(expressionOf(a).split(' + ').sort()).toEqual(Object.keys(statsOf(a)).sort());
    }
  });

  it('follow the functions the routes call for: a group without deployed routes has neither function nor alarm', () => {
    const without = synthPlatform(
      {},
      deployedRoutes.filter((r) => r.group !== 'catalog'),
    );
    expect(without.fnIds.has('catalog')).toBe(false);
    expect([...alarms(without).keys()].filter((n) => n.includes('catalog'))).toEqual([]);
    expect(alarms(without).size).toBe(alarms().size - 2);
  });
});

describe('dashboard', () => {
  const body = () => {
    const dashboards = s.ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]![1].Properties.DashboardName).toBe('saas-test');
    return JSON.parse(
      flat(dashboards[0]![1].Properties.DashboardBody).replace(/\{Ref:[^}]+\}|\{[A-Za-z0-9]+\.(Arn|QueueName)\}/g, 'X'),
    );
  };

  it('has the alarm states on top, then a row each for the API, functions, queues, table and business metrics', () => {
    const widgets: Json[] = body().widgets;
    expect(widgets[0]).toMatchObject({ type: 'alarm', width: 24 });
    expect(widgets[0].properties.alarms).toHaveLength(alarms().size);
    const headers = widgets.filter((w) => w.type === 'text').map((w) => w.properties.markdown.split('\n')[0]);
    expect(headers).toEqual(['## API', '## Functions', '## Queues', '## Table', '## LLM gateway', '## Business']);
    const titles = widgets.filter((w) => w.type === 'metric').map((w) => w.properties.title);
    for (const t of [
      '5xx rate (%)',
      'Latency (ms)',
      'API function error rate (%)',
      'Throttles',
      'Dead-lettered messages',
      'Throttled requests',
      'System errors',
    ]) {
      expect(titles).toContain(t);
    }
  });

  it('draws one line per function in the function graphs, and a SEARCH graph per business metric', () => {
    const widgets: Json[] = body().widgets;
    const invocations = widgets.find((w) => w.properties?.title === 'Invocations')!;
    expect(invocations.properties.metrics).toHaveLength(s.fnIds.size);
    const labels = invocations.properties.metrics.map((m: Json[]) => (m.at(-1) as Json).label);
    expect(labels.sort()).toEqual([...s.fnIds.keys()].sort());
    const latency = widgets.find((w) => w.properties?.title === 'Latency (ms)')!;
    expect(latency.properties.annotations.horizontal[0].value).toBe(3000);

    for (const [name, { dimension, title }] of Object.entries(BUSINESS_METRICS)) {
      const w = widgets.find((x) => x.properties?.title === title)!;
      expect(w, name).toBeDefined();
      expect(w.properties.metrics[0][0].expression).toBe(
        `SEARCH('{"saas/test",service,${dimension}} MetricName="${name}"', 'Sum', 300)`,
      );
    }
  });
});
