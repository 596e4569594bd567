import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  SearchExpression,
  TextWidget,
  type Alarm,
  type HorizontalAnnotation,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { BUSINESS_METRICS, metricsNamespace, SERVICE_DIMENSION } from '#shared/runtime/metric-catalog.ts';
import type { MonitoredResources } from './monitoring.ts';
import { QUEUE_NAMES } from './queues.ts';
import {
  api5xxRate,
  apiP99Latency,
  functionErrorRate,
  functionErrors,
  functionThrottles,
  isWorker,
  llmSpendTotal,
  MICRO_USD_PER_USD,
  PERIOD,
  SPEND_PERIOD,
  tableSystemErrors,
  tableThrottles,
} from './signals.ts';

const graph = (title: string, left: IMetric[], opts: { width?: number; threshold?: HorizontalAnnotation } = {}) =>
  new GraphWidget({
    title,
    left,
    width: opts.width ?? 8,
    height: 6,
    period: PERIOD,
    leftAnnotations: opts.threshold ? [opts.threshold] : undefined,
  });

const header = (markdown: string) => new TextWidget({ markdown, width: 24, height: 2 });
const alarmLine = (value: number, label: string): HorizontalAnnotation => ({ value, label, color: '#d62728' });
const perFunction = (
  res: MonitoredResources,
  metric: (fn: IFunction, name: string) => IMetric,
  which: (name: string) => boolean,
) => [...res.functions].filter(([name]) => which(name)).map(([name, fn]) => metric(fn, name));

/**
 * The operator's view, one row per area in the order a page is read: alarm states, the API, the
 * functions, the queues, the table, then the business metrics. Red lines are alarm thresholds.
 */
export function platformDashboard(
  scope: Construct,
  id: string,
  res: MonitoredResources & { alarms: Alarm[] },
): Dashboard {
  const { settings, api, queues, table, alarms } = res;
  const { monitoring } = settings;
  const namespace = metricsNamespace(settings.appName, settings.stage);
  const any = () => true;
  const apiFns = (name: string) => !isWorker(name);

  const dashboard = new Dashboard(scope, id, { dashboardName: `${settings.appName}-${settings.stage}` });
  const rows: IWidget[][] = [
    [
      new AlarmStatusWidget({
        title: 'Alarms (red: firing; each one is explained in docs/operations.md)',
        alarms,
        width: 24,
        height: 4,
      }),
    ],
    [header('## API\nRequests and errors of the HTTP API, 5xx rate and p99 latency (alarms above the red lines).')],
    [
      graph('Requests, 4xx, 5xx', [
        api.metricCount({ statistic: 'Sum', label: 'requests' }),
        api.metricClientError({ statistic: 'Sum', label: '4xx' }),
        api.metricServerError({ statistic: 'Sum', label: '5xx' }),
      ]),
      graph('5xx rate (%)', [api5xxRate(api)], { threshold: alarmLine(monitoring.api5xxRatePercent, 'alarm') }),
      graph(
        'Latency (ms)',
        [
          api.metricLatency({ statistic: 'p50', label: 'p50' }),
          api.metricLatency({ statistic: 'p90', label: 'p90' }),
          apiP99Latency(api),
          api.metricIntegrationLatency({ statistic: 'p99', label: 'integration p99' }),
        ],
        {
          threshold: alarmLine(monitoring.apiP99LatencyMs, 'p99 alarm'),
        },
      ),
    ],
    [
      header(
        '## Functions\nOne line per function. API functions alarm on error rate, workers on any error, every function on any throttle.',
      ),
    ],
    [
      graph(
        'Invocations',
        perFunction(res, (fn, name) => fn.metricInvocations({ statistic: 'Sum', label: name }), any),
        { width: 6 },
      ),
      graph('API function error rate (%)', perFunction(res, functionErrorRate, apiFns), {
        width: 6,
        threshold: alarmLine(monitoring.functionErrorRatePercent, 'alarm'),
      }),
      graph(
        'Errors',
        perFunction(res, (fn, name) => functionErrors(fn).with({ label: name }), any),
        { width: 6 },
      ),
      graph(
        'Throttles',
        perFunction(res, (fn, name) => functionThrottles(fn).with({ label: name }), any),
        { width: 6 },
      ),
    ],
    [
      graph(
        'Duration p99 (ms)',
        perFunction(res, (fn, name) => fn.metricDuration({ statistic: 'p99', label: name }), any),
        { width: 12 },
      ),
      graph(
        'Concurrent executions (max)',
        perFunction(res, (fn, name) => fn.metric('ConcurrentExecutions', { statistic: 'Maximum', label: name }), any),
        { width: 12 },
      ),
    ],
    [header('## Queues\nBacklog and age of the work queues; a dead-letter queue above zero is an incident.')],
    [
      graph(
        'Messages waiting',
        QUEUE_NAMES.map((q) =>
          queues.queues[q].metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: q }),
        ),
      ),
      graph(
        'Oldest message age (s)',
        QUEUE_NAMES.map((q) =>
          queues.queues[q].metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', label: q }),
        ),
      ),
      graph(
        'Dead-lettered messages',
        QUEUE_NAMES.map((q) =>
          queues.deadLetters[q].metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: `${q} DLQ` }),
        ),
        {
          threshold: alarmLine(1, 'alarm'),
        },
      ),
    ],
    [header('## Table\nCapacity used, throttled requests and system errors (alarms on any), read latency.')],
    [
      graph(
        'Consumed capacity',
        [
          table.metricConsumedReadCapacityUnits({ statistic: 'Sum', label: 'read units' }),
          table.metricConsumedWriteCapacityUnits({ statistic: 'Sum', label: 'write units' }),
        ],
        { width: 6 },
      ),
      graph('Throttled requests', [tableThrottles(table)], { width: 6 }),
      graph('System errors', [tableSystemErrors(table)], { width: 6 }),
      graph(
        'GetItem / Query latency (ms, avg)',
        ['GetItem', 'Query'].map((operation) =>
          table.metricSuccessfulRequestLatency({
            dimensionsMap: { TableName: table.tableName, Operation: operation },
            label: operation,
          }),
        ),
        { width: 6 },
      ),
    ],
    [
      header(
        '## LLM gateway\nSpend per hour in millionths of a dollar (1,000,000 = 1 USD), by model and in total; the alarm watches the total.',
      ),
    ],
    [
      new GraphWidget({
        title: 'LLM gateway spend per hour (micro-USD), by model and total',
        left: [
          new SearchExpression({
            expression: `SEARCH('{"${namespace}",${SERVICE_DIMENSION},model} MetricName="LlmSpendMicroUsd"', 'Sum', ${SPEND_PERIOD.toSeconds()})`,
            period: SPEND_PERIOD,
          }),
          llmSpendTotal(settings).with({ label: 'all models' }),
        ],
        width: 24,
        height: 6,
        period: SPEND_PERIOD,
        leftAnnotations: [alarmLine(monitoring.llmSpendUsdPerHour * MICRO_USD_PER_USD, 'alarm')],
      }),
    ],
    [
      header(
        `## Business\nCounted by the functions (namespace \`${namespace}\`, see shared/runtime/metric-catalog.ts); one line per dimension value.`,
      ),
    ],
    Object.entries(BUSINESS_METRICS).map(([name, { dimension, title }]) =>
      graph(
        title,
        [
          new SearchExpression({
            expression: `SEARCH('{"${namespace}",${SERVICE_DIMENSION},${dimension}} MetricName="${name}"', 'Sum', ${PERIOD.toSeconds()})`,
            period: PERIOD,
          }),
        ],
        { width: 6 },
      ),
    ),
  ];
  for (const row of rows) dashboard.addWidgets(...row);
  return dashboard;
}
