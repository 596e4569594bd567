import { describe, expect, it } from 'vitest';
import {
  chunk,
  clientClassName,
  concurrentGroups,
  floorEntrySource,
  median,
  percentile,
  pool,
  ratio,
  readRouteKind,
  sdkClientPackages,
} from '../../bench/stats.ts';

describe('bench statistics', () => {
  it('takes the median of odd and even samples without reordering the input', () => {
    const sample = [5, 1, 3];
    expect(median(sample)).toBe(3);
    expect(sample).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('takes nearest-rank percentiles', () => {
    const sample = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(percentile(sample, 90)).toBe(9);
    expect(percentile(sample, 100)).toBe(10);
    expect(percentile(sample, 0)).toBe(1);
  });

  it('divides by the floor, NaN for an empty floor', () => {
    expect(ratio(125, 100)).toBe(1.25);
    expect(ratio(1, 0)).toBeNaN();
  });
});

describe('floor bundles', () => {
  it('finds the SDK client packages among esbuild metafile inputs', () => {
    const inputs = [
      'node_modules/@aws-sdk/client-dynamodb/dist-es/DynamoDBClient.js',
      'node_modules/@aws-sdk/client-dynamodb/dist-es/commands/GetItemCommand.js',
      'node_modules/@aws-sdk/lib-dynamodb/dist-es/index.js',
      'node_modules/@aws-sdk/core/dist-es/index.js',
      'node_modules/@smithy/core/dist-es/index.js',
      'node_modules/@aws-sdk/client-ssm/dist-es/index.js',
      'shared/platform/aws.ts',
    ];
    expect(sdkClientPackages(inputs)).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/client-ssm', '@aws-sdk/lib-dynamodb']);
    expect(sdkClientPackages(['functions/fallback/index.ts'])).toEqual([]);
  });

  it('picks the client class of a client package', () => {
    expect(clientClassName(['DynamoDBServiceException', 'GetItemCommand', 'DynamoDBClient', 'DynamoDB'])).toBe('DynamoDBClient');
    expect(clientClassName(['S3Client', 'S3'])).toBe('S3Client');
    expect(clientClassName(['paginateQuery'])).toBeUndefined();
  });

  it('writes an entry that imports and constructs each client, DynamoDB wrapped in the document client', () => {
    const source = floorEntrySource(
      [
        { pkg: '@aws-sdk/client-dynamodb', className: 'DynamoDBClient' },
        { pkg: '@aws-sdk/client-ssm', className: 'SSMClient' },
      ],
      true,
    );
    expect(source).toContain("import { DynamoDBClient as C0 } from '@aws-sdk/client-dynamodb';");
    expect(source).toContain("import { SSMClient as C1 } from '@aws-sdk/client-ssm';");
    expect(source).toContain("import { DynamoDBDocumentClient as DocumentClient } from '@aws-sdk/lib-dynamodb';");
    expect(source).toContain('export const clients = [DocumentClient.from(new C0({})), new C1({})];');
    expect(floorEntrySource([], false)).toContain('export const clients = [];');
  });
});

describe('request shapes', () => {
  it('groups calls that overlapped in time', () => {
    const calls = [
      { id: 'count', startedAt: 0, endedAt: 5 },
      { id: 'page', startedAt: 0.1, endedAt: 6 },
      { id: 'next', startedAt: 6.2, endedAt: 8 },
    ];
    expect(concurrentGroups(calls).map((g) => g.map((c) => c.id))).toEqual([['count', 'page'], ['next']]);
    expect(concurrentGroups([])).toEqual([]);
  });

  it('tells lists from GETs by id', () => {
    expect(readRouteKind('/api/suppliers', ['tenantId', 'page', 'pageSize'])).toBe('list');
    expect(readRouteKind('/api/suppliers/{supplierId}', ['tenantId'])).toBe('get-by-id');
    expect(readRouteKind('/api/secrets/{environment}', [], true)).toBe('list');
    expect(readRouteKind('/api/health', [])).toBe('other');
  });

  it('chunks for BatchWriteItem and runs tasks with bounded concurrency', async () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    let running = 0;
    let most = 0;
    const results = await pool(
      Array.from({ length: 6 }, (_, i) => async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 1));
        running--;
        return i * 2;
      }),
      2,
    );
    expect(results).toEqual([0, 2, 4, 6, 8, 10]);
    expect(most).toBe(2);
  });
});
