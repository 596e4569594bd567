import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { localClient } from '#local/dynamodb-local.ts';
import { keys } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';
import { invoke, putTenant, tokenFor, type BenchRequest, type Harness } from './harness.ts';
import { chunk, median, pool } from './stats.ts';

export interface ScalePoint {
  records: number;
  page: number;
  pageSize: number;
  items: number;
  requests: number;
  capacity: number;
  medianMs: number;
}

export interface ScaleResult {
  seedSeconds: number;
  points: ScalePoint[];
  /** Page 1 capacity at 10,000 records over page 1 at 100: target <= 2. */
  page1CapacityRatio: number;
  pass: boolean;
}

/**
 * Creates one supplier through the API, then clones its stored item (same attributes, keys built
 * by keys.ts) into `count - 1` older records with BatchWriteItem, and moves the maintained
 * counter by the same amount, as creating them one by one would.
 */
async function seedSuppliers(count: number): Promise<{ tenantId: string; token: string }> {
  const tenantId = crypto.randomUUID();
  await putTenant(tenantId);
  const token = await tokenFor(tenantId, 'TenantOwner');
  const created = await invoke({
    method: 'POST',
    path: '/api/suppliers',
    token,
    body: { name: 'Supplier 0', contactPerson: 'Ann Lee', email: 'ann@bench.example', tenantId },
  });
  if (created.status !== 201) throw new Error(`Creating a supplier answered ${created.status}`);
  const client = DynamoDBDocumentClient.from(localClient(process.env.AWS_ENDPOINT_URL_DYNAMODB!));
  const template = (
    await client.send(
      new GetCommand({
        TableName: config.tableName,
        Key: keys.tenantItem(tenantId, 'SUPPLIER', created.json.result.id),
      }),
    )
  ).Item!;
  const collection = keys.tenantCollection(tenantId, 'SUPPLIER');
  const newest = Date.parse(template.createdAt as string);
  const items = Array.from({ length: count - 1 }, (_, i) => {
    const id = crypto.randomUUID();
    const createdAt = new Date(newest - (i + 1) * 1000).toISOString();
    const name = `Supplier ${i + 1}`;
    return {
      ...template,
      ...keys.tenantItem(tenantId, 'SUPPLIER', id),
      ...keys.newestFirst(collection, createdAt, id),
      id,
      name,
      createdAt,
      searchText: String(template.searchText ?? '').replace('supplier 0', name.toLowerCase()),
    };
  });
  await batchPut(client, items);
  if (count > 1) {
    await client.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.counter(collection),
        UpdateExpression: 'ADD #count :n',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':n': count - 1 },
      }),
    );
  }
  return { tenantId, token };
}

/** Page 1 and page 50 (pageSize 20) of the unfiltered supplier list with 100 and 10,000 records. */
export async function measureScale(
  h: Harness,
  sizes = [100, 10_000],
  pages = [1, 50],
  iterations = 25,
): Promise<ScaleResult> {
  const t0 = performance.now();
  const tenants = new Map<number, { tenantId: string; token: string }>();
  for (const size of sizes) tenants.set(size, await seedSuppliers(size));
  const seedSeconds = (performance.now() - t0) / 1000;
  const pageSize = 20;
  const points: ScalePoint[] = [];
  for (const size of sizes) {
    const { token } = tenants.get(size)!;
    for (const page of pages) {
      const req = { method: 'GET', path: `/api/suppliers?page=${page}&pageSize=${pageSize}`, token };
      h.recorder.label = `list of ${size}, page ${page}`;
      const { first, requests, capacity, medianMs } = await measureRoute(h, req, iterations);
      if (first.status !== 200) throw new Error(`${req.path} answered ${first.status}`);
      if (first.json.result.totalCount !== size)
        throw new Error(`Expected totalCount ${size}, got ${first.json.result.totalCount}`);
      points.push({
        records: size,
        page,
        pageSize,
        items: first.json.result.items.length,
        requests,
        capacity,
        medianMs,
      });
    }
  }
  const cap = (records: number) => points.find((p) => p.records === records && p.page === 1)!.capacity;
  const page1CapacityRatio = cap(sizes.at(-1)!) / cap(sizes[0]!);
  return { seedSeconds, points, page1CapacityRatio, pass: page1CapacityRatio <= 2 };
}

/** BatchWriteItem in 25s, 8 in flight, unprocessed items sent again: seeding only. */
export async function batchPut(client: DynamoDBDocumentClient, items: Record<string, unknown>[]) {
  await pool(
    chunk(items, 25).map((batch) => async () => {
      let pending: Record<string, unknown>[] | undefined = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending?.length) {
        const out = await client.send(
          new BatchWriteCommand({ RequestItems: { [config.tableName]: pending as never } }),
        );
        pending = out.UnprocessedItems?.[config.tableName] as Record<string, unknown>[] | undefined;
      }
    }),
    8,
  );
}

/** One call to warm up, one counted (DynamoDB requests and capacity), then `iterations` timed. */
export async function measureRoute(h: Harness, req: BenchRequest, iterations: number) {
  const first = await invoke(req);
  h.recorder.reset();
  await invoke(req);
  const requests = h.recorder.requests.length;
  const capacity = h.recorder.capacity;
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await invoke(req);
    times.push(performance.now() - t);
  }
  return { first, requests, capacity, medianMs: median(times) };
}
