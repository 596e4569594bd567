import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { INVOKED } from '#shared/routes/groups.ts';
import { platformDashboard } from './dashboard.ts';
import { QUEUE_NAMES, type WorkQueues } from './queues.ts';
import type { StackSettings } from './settings.ts';
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

export interface MonitoredResources {
  settings: StackSettings;
  api: HttpApi;
  /** Every function by group or worker name; workers are the names in WORKERS. */
  functions: ReadonlyMap<string, IFunction>;
  queues: WorkQueues;
  table: Table;
}

/** Where each alarm's first steps are written down. */
const RUNBOOK = 'docs/operations.md';

/**
 * One SNS topic (e-mail subscriptions from `-c alarmEmail=...`) and every alarm of the platform on
 * it, built from the stack's own lists: each function in `functions`, each queue's DLQ, the API and
 * the table. A group that gets a function later gets its alarms and dashboard graphs with it.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, res: MonitoredResources) {
    super(scope, id);
    const { settings, api, functions, queues, table } = res;
    const { monitoring } = settings;
    const prefix = `${settings.appName}-${settings.stage}`;

    this.topic = new Topic(this, 'Alarms', { displayName: `${prefix} alarms`, enforceSSL: true });
    // The TLS-only topic policy replaces SNS's default one, so CloudWatch must be let in by name:
    // this account's alarms of this deployment only.
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisDeploymentsAlarms',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${prefix}-*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    for (const email of monitoring.alarmEmails) this.topic.addSubscription(new EmailSubscription(email));
    const action = new SnsAction(this.topic);

    const alarm = (
      key: string,
      metric: IMetric,
      threshold: number,
      comparison: ComparisonOperator,
      what: string,
      anchor: string,
    ) => {
      const created = new Alarm(this, key, {
        alarmName: `${prefix}-${key}`,
        alarmDescription: `${what}. First steps: ${RUNBOOK}#${anchor}`,
        metric,
        threshold,
        comparisonOperator: comparison,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
    };
    const above = ComparisonOperator.GREATER_THAN_THRESHOLD;
    const minutes = PERIOD.toMinutes();

    for (const [name, fn] of functions) {
      if (isWorker(name)) {
        alarm(
          `fn-${name}-errors`,
          functionErrors(fn),
          0,
          above,
          `Worker ${name} failed invocations in ${minutes} minutes`,
          'function-errors',
        );
      } else {
        alarm(
          `fn-${name}-error-rate`,
          functionErrorRate(fn, name),
          monitoring.functionErrorRatePercent,
          above,
          `Function ${name} error rate above ${monitoring.functionErrorRatePercent}% over ${minutes} minutes`,
          'function-error-rate',
        );
      }
      alarm(
        `fn-${name}-throttles`,
        functionThrottles(fn),
        0,
        above,
        `Function ${name} was throttled`,
        'function-throttles',
      );
    }

    // An invoked function's caller waits for it: one that runs near its timeout is about to fail its callers.
    for (const [name, spec] of Object.entries(INVOKED)) {
      const fn = functions.get(name);
      if (!fn) continue;
      alarm(
        `fn-${name}-duration`,
        fn.metricDuration({ statistic: 'p99', period: PERIOD }),
        spec.timeoutSeconds * 900,
        above,
        `Function ${name} p99 duration above 90% of its ${spec.timeoutSeconds} s timeout over ${minutes} minutes`,
        'function-duration',
      );
    }

    alarm(
      'api-5xx-rate',
      api5xxRate(api),
      monitoring.api5xxRatePercent,
      above,
      `API 5xx rate above ${monitoring.api5xxRatePercent}% over ${minutes} minutes`,
      'api-5xx-rate',
    );
    alarm(
      'api-p99-latency',
      apiP99Latency(api),
      monitoring.apiP99LatencyMs,
      above,
      `API p99 latency above ${monitoring.apiP99LatencyMs} ms over ${minutes} minutes`,
      'api-p99-latency',
    );

    for (const q of QUEUE_NAMES) {
      alarm(
        `dlq-${q}`,
        queues.deadLetters[q].metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
        1,
        ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        `A message of the ${q} queue was dead-lettered`,
        'dead-lettered-messages',
      );
    }

    alarm(
      'table-throttles',
      tableThrottles(table),
      0,
      above,
      'DynamoDB throttled requests on the table',
      'table-throttles',
    );
    alarm(
      'table-system-errors',
      tableSystemErrors(table),
      0,
      above,
      'DynamoDB system errors on the table',
      'table-system-errors',
    );

    alarm(
      'llm-spend',
      llmSpendTotal(settings),
      monitoring.llmSpendUsdPerHour * MICRO_USD_PER_USD,
      above,
      `LLM gateway spend above ${monitoring.llmSpendUsdPerHour} USD in ${SPEND_PERIOD.toHumanString()} (all models and tenants, in millionths of a dollar)`,
      'llm-spend',
    );

    platformDashboard(this, 'Dashboard', { ...res, alarms: this.alarms });
  }
}
