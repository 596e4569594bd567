import { describe, expect, it } from 'vitest';
import {
  chunk,
  clientClassName,
  concurrentGroups,
  clientTiming,
  floorEntrySource,
  floorKey,
  median,
  percentile,
  pool,
  ratio,
  readRouteKind,
  sdkClientPackages,
} from '#bench/stats.ts';

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
    expect(sdkClientPackages(inputs)).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/client-ssm',
      '@aws-sdk/lib-dynamodb',
    ]);
    expect(sdkClientPackages(['functions/fallback/index.ts'])).toEqual([]);
  });

  it('picks the client class of a client package', () => {
    expect(clientClassName(['DynamoDBServiceException', 'GetItemCommand', 'DynamoDBClient', 'DynamoDB'])).toBe(
      'DynamoDBClient',
    );
    expect(clientClassName(['S3Client', 'S3'])).toBe('S3Client');
    expect(clientClassName(['paginateQuery'])).toBeUndefined();
  });

  it('writes the strict floor: the clients evaluated at import, imported at top level, constructed in the handler', () => {
    const source = floorEntrySource([
      { pkg: '@aws-sdk/client-dynamodb', className: 'DynamoDBClient', timing: 'constructed' },
      { pkg: '@aws-sdk/client-ssm', className: 'SSMClient', timing: 'imported' },
      { pkg: '@aws-sdk/client-s3', className: 'S3Client', timing: 'deferred' },
    ]);
    expect(source).toContain("import { DynamoDBClient as C0 } from '@aws-sdk/client-dynamodb';");
    expect(source).toContain("import { SSMClient as C1 } from '@aws-sdk/client-ssm';");
    // Not lib-dynamodb (the project's choice), not what the function loads on first use.
    expect(source).not.toContain('lib-dynamodb');
    expect(source).not.toContain('client-s3');
    const [atImport, handler] = source.split('export const handler');
    expect(atImport).not.toMatch(/new C\d/);
    expect(handler).toContain('clients.push(new C0({}), new C1({}))');
    expect(floorEntrySource([])).toContain('export const clients = [];');
  });

  it('classifies each client from what the probe build saw at import', () => {
    const probe = {
      evaluated: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-ssm'],
      constructed: ['@aws-sdk/client-ssm'],
    };
    expect(clientTiming('@aws-sdk/client-dynamodb', probe)).toBe('imported');
    expect(clientTiming('@aws-sdk/client-ssm', probe)).toBe('constructed');
    expect(clientTiming('@aws-sdk/client-s3', probe)).toBe('deferred');
    const key = floorKey([
      { pkg: '@aws-sdk/client-dynamodb', className: 'DynamoDBClient', timing: 'imported' },
      { pkg: '@aws-sdk/client-ssm', className: 'SSMClient', timing: 'constructed' },
      { pkg: '@aws-sdk/client-s3', className: 'S3Client', timing: 'deferred' },
    ]);
    expect(key).toBe('dynamodb+ssm');
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
