import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { recordCall, type CallRecord } from '#areas/llm-gateway/usage.ts';
import { countMetric } from '#shared/runtime/metrics.ts';

// The analytics ingestion is not what this file tests; the metrics module is only watched.
vi.mock('#areas/analytics/ingest.ts', () => ({ ingest: vi.fn(async () => undefined) }));
vi.mock('#shared/runtime/metrics.ts', () => ({ countMetric: vi.fn(), publishMetrics: vi.fn() }));

const ddbMock = mockClient(DynamoDBDocumentClient);
const counted = vi.mocked(countMetric);

const call = (over: Partial<CallRecord> = {}): CallRecord => ({
  tenantId: 't-1',
  caller: { kind: 'key', keyId: 'k-1' } as CallRecord['caller'],
  requestId: 'req-1',
  model: 'nova-lite',
  promptTokens: 1000,
  completionTokens: 500,
  costNano: 180_000, // 0.00018 USD
  latencyMs: 12,
  isError: false,
  at: '2026-11-24T19:00:00.000Z',
  ...over,
});

beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().resolves({});
  counted.mockClear();
});

describe('recordCall spend metrics', () => {
  it('counts the spend by model and once more as the total the spend alarm watches, in millionths of a dollar', async () => {
    await recordCall(call());
    expect(counted.mock.calls).toEqual([
      ['LlmSpendMicroUsd', 'nova-lite', 180],
      ['LlmSpendTotalMicroUsd', 'gateway', 180],
    ]);
  });

  it('sums every model into the one total dimension value', async () => {
    await recordCall(call({ model: 'nova-lite', costNano: 2_000_000 }));
    await recordCall(call({ model: 'claude-3-7-sonnet', costNano: 3_000_000 }));
    const totals = counted.mock.calls.filter(([name]) => name === 'LlmSpendTotalMicroUsd');
    expect(totals).toEqual([
      ['LlmSpendTotalMicroUsd', 'gateway', 2000],
      ['LlmSpendTotalMicroUsd', 'gateway', 3000],
    ]);
  });

  it('counts no spend below a millionth of a dollar (a free or refused call)', async () => {
    await recordCall(call({ costNano: 999 }));
    expect(counted.mock.calls.filter(([name]) => String(name).startsWith('LlmSpend'))).toEqual([]);
  });
});
