import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import type { FunctionHost } from './function-host.ts';
import { ACCOUNT, REGION, type StackTemplate } from './template.ts';

/** The most messages SQS returns to one receive, or deletes in one batch. */
const SQS_RECEIVE_MAX = 10;

interface Mapping {
  id: string;
  queueArn: string;
  queueUrl: string;
  fifo: boolean;
  batchSize: number;
  reportsFailures: boolean;
  host: FunctionHost;
  /** The poller's own calls are the function's: Lambda polls with the function's execution role. */
  client: SQSClient;
}

export interface PollRecord {
  mapping: string;
  functionName: string;
  messages: number;
  failed: number;
  error?: unknown;
}

const sqsRecord = (m: Message, queueArn: string): SQSEvent['Records'][number] => ({
  messageId: m.MessageId!,
  receiptHandle: m.ReceiptHandle!,
  body: m.Body ?? '',
  attributes: m.Attributes as never,
  messageAttributes: Object.fromEntries(
    Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [
      k,
      {
        dataType: v.DataType!,
        ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
        ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString('base64') } : {}),
        stringListValues: [],
        binaryListValues: [],
      },
    ]),
  ),
  md5OfBody: m.MD5OfBody!,
  eventSource: 'aws:sqs',
  eventSourceARN: queueArn,
  awsRegion: REGION,
});

/**
 * Lambda's SQS event source mappings from the template: each receives a batch of at most its
 * BatchSize with the function's credentials, invokes the function with an SQS event, deletes what
 * succeeded and, with ReportBatchItemFailures, leaves each reported message for SQS to deliver again
 * (after its visibility timeout; here the clock is moved on at once) until the queue's redrive policy
 * parks it. One batch per queue at a time: local-aws-sqs does not lock a FIFO group while its
 * messages are in flight, so a second batch could take a group's later message early; one at a time,
 * a group's messages come in order and a failed one is received again before those after it.
 */
export class QueuePollers {
  readonly mappings: Mapping[] = [];
  readonly record: PollRecord[] = [];

  constructor(
    t: StackTemplate,
    hostOf: (functionName: string) => FunctionHost,
    clientFor: (host: FunctionHost) => SQSClient,
    /** Visibility moves past its timeout: the stand-in's own endpoint, no role involved. */
    private readonly clock: SQSClient,
  ) {
    for (const [id, r] of t.ofType('AWS::Lambda::EventSourceMapping')) {
      const p = r.Properties;
      const queueId = p.EventSourceArn['Fn::GetAtt'][0] as string;
      const host = hostOf(t.resolve(p.FunctionName) as string);
      this.mappings.push({
        id,
        queueArn: t.attribute(queueId, 'Arn'),
        queueUrl: t.ref(queueId),
        fifo: !!t.resources[queueId]!.Properties.FifoQueue,
        batchSize: p.BatchSize ?? 10,
        reportsFailures: (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures'),
        host,
        client: clientFor(host),
      });
    }
  }

  /** One poll of one mapping: how many messages it delivered. */
  private async poll(m: Mapping): Promise<number> {
    // SQS hands out at most 10 a receive; Lambda's poller gathers a larger batch from several.
    const Messages: Message[] = [];
    while (Messages.length < m.batchSize) {
      const { Messages: got = [] } = await m.client.send(
        new ReceiveMessageCommand({
          QueueUrl: m.queueUrl,
          MaxNumberOfMessages: Math.min(SQS_RECEIVE_MAX, m.batchSize - Messages.length),
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      );
      Messages.push(...got);
      if (!got.length) break;
    }
    if (!Messages.length) return 0;
    const event: SQSEvent = { Records: Messages.map((msg) => sqsRecord(msg, m.queueArn)) };
    const out = await m.host.invoke(event);
    let failedIds: Set<string>;
    if (!out.ok) failedIds = new Set(Messages.map((msg) => msg.MessageId!));
    else if (m.reportsFailures) {
      const failures =
        (out.payload as { batchItemFailures?: { itemIdentifier: string }[] } | null)?.batchItemFailures ?? [];
      failedIds = new Set(failures.map((f) => f.itemIdentifier));
    } else failedIds = new Set();
    const done = Messages.filter((msg) => !failedIds.has(msg.MessageId!));
    for (let i = 0; i < done.length; i += SQS_RECEIVE_MAX)
      await m.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: m.queueUrl,
          Entries: done
            .slice(i, i + SQS_RECEIVE_MAX)
            .map((msg, j) => ({ Id: String(j), ReceiptHandle: msg.ReceiptHandle! })),
        }),
      );
    for (const msg of Messages.filter((x) => failedIds.has(x.MessageId!)))
      await this.clock.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: m.queueUrl,
          ReceiptHandle: msg.ReceiptHandle!,
          VisibilityTimeout: 0,
        }),
      );
    this.record.push({
      mapping: m.id,
      functionName: m.host.fn.name,
      messages: Messages.length,
      failed: failedIds.size,
      ...(out.ok ? {} : { error: out.payload }),
    });
    return Messages.length;
  }

  /** Polls every mapping until no queue has a visible message (at most `rounds` rounds). */
  async drain(rounds = 40): Promise<number> {
    let delivered = 0;
    for (let i = 0; i < rounds; i++) {
      let round = 0;
      for (const m of this.mappings) round += await this.poll(m);
      delivered += round;
      if (!round) return delivered;
    }
    throw new Error(`Queues still had messages after ${rounds} rounds`);
  }
}

/** An EventBridge schedule's event, as the rule's target receives it. */
export function scheduledEvent(ruleArn: string) {
  return {
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT,
    time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    region: REGION,
    resources: [ruleArn],
    detail: {},
  };
}
