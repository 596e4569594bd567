import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { MathExpression, Metric, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SCHEDULED, WORKERS } from '#shared/routes/groups.ts';
import { LLM_SPEND_TOTAL, metricsNamespace, SERVICE_DIMENSION } from '#shared/runtime/metric-catalog.ts';
import type { StackSettings } from './settings.ts';

/**
 * The metrics the alarms watch, built once so the dashboard draws exactly what the alarms see.
 * Every alarm looks at one 5-minute period.
 */
export const PERIOD = Duration.minutes(5);

const sum = { statistic: 'Sum', period: PERIOD } as const;

/**
 * `100 * part / whole`, 0 when nothing happened (so a quiet period never looks like an error spike).
 * Ids end in `key` because one graph may not use an id for two different metrics.
 */
function percentOf(part: IMetric, whole: IMetric, key: string, label: string) {
  const [p, w] = [`part_${key}`, `whole_${key}`];
  return new MathExpression({
    expression: `IF(${w} > 0, 100 * ${p} / ${w}, 0)`,
    usingMetrics: { [p]: part, [w]: whole },
    period: PERIOD,
    label,
  });
}

const idSafe = (name: string) => name.replace(/[^a-zA-Z0-9]/g, '_');

/**
 * Workers alarm on any error (each is a message that will be retried, then parked); API functions on
 * their error rate, so one failed request among thousands does not page anyone.
 */
/** Functions no client waits on (queue workers, scheduled runs): any error is worth an alarm. */
export const isWorker = (name: string) => name in WORKERS || name in SCHEDULED;

/** Errors (uncaught exceptions, timeouts, crashes; not 4xx/5xx envelopes) per 100 invocations. */
export const functionErrorRate = (fn: IFunction, name: string) =>
  percentOf(fn.metricErrors(sum), fn.metricInvocations(sum), idSafe(name), `${name} error rate (%)`);

export const functionErrors = (fn: IFunction) => fn.metricErrors(sum);
export const functionThrottles = (fn: IFunction) => fn.metricThrottles(sum);

/** 5xx answers per 100 requests, over the whole API (its only stage is `$default`). */
export const api5xxRate = (api: HttpApi) =>
  percentOf(api.metricServerError(sum), api.metricCount(sum), 'api', '5xx rate (%)');
export const apiP99Latency = (api: HttpApi) =>
  api.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99 latency (ms)' });

/**
 * The DynamoDB operations the functions are granted (lib/access.ts) plus the transactions built
 * from them. DynamoDB publishes throttles and system errors per operation; an alarm may use at
 * most 10 metrics, and these are 9.
 */
export const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.TRANSACT_GET_ITEMS,
];

export const tableThrottles = (table: Table) =>
  table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, ...sum });
export const tableSystemErrors = (table: Table) =>
  table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, ...sum });

/**
 * The LLM gateway's spend alarm looks at one hour, not five minutes: spend is a budget, stated per
 * hour, and model calls come in bursts (one long agent turn) that a 5-minute window would turn
 * into noise. An alarm cannot sum across a changing set of models, so it watches the total the
 * gateway counts beside the per-model metric (areas/llm-gateway/usage.ts).
 */
export const SPEND_PERIOD = Duration.hours(1);
export const MICRO_USD_PER_USD = 1_000_000;

export const llmSpendTotal = (settings: Pick<StackSettings, 'appName' | 'stage'>, period = SPEND_PERIOD) =>
  new Metric({
    namespace: metricsNamespace(settings.appName, settings.stage),
    metricName: 'LlmSpendTotalMicroUsd',
    dimensionsMap: { [SERVICE_DIMENSION]: settings.appName, scope: LLM_SPEND_TOTAL },
    statistic: 'Sum',
    period,
  });
