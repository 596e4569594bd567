import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { bcmConfig, bia } from '#areas/bcm/records.ts';
import { localClient } from '#local/dynamodb-local.ts';
import { keys } from '#shared/data/keys.ts';
import { config } from '#shared/platform/config.ts';
import { invoke, putTenant, tokenFor, type Harness } from './harness.ts';
import { batchPut, measureRoute } from './scale.ts';

export interface DashboardPoint {
  bias: number;
  entries: number;
  requests: number;
  capacity: number;
  medianMs: number;
  /** The dashboard's own counts, checked against what was seeded. */
  totalAssessments: number;
  totalEntries: number;
}

export interface DashboardScale {
  seedSeconds: number;
  points: DashboardPoint[];
  /** Same number of DynamoDB requests at every size, and at most 3. */
  pass: boolean;
}

const client = () => DynamoDBDocumentClient.from(localClient(process.env.AWS_ENDPOINT_URL_DYNAMODB!));

/**
 * A tenant with `biaCount` BIAs of `entriesPerBia` entries each. One BIA and one entry are made
 * through the API; the rest are clones of their stored items (keys from keys.ts, open task-index
 * attributes kept), and the BCM stats counters move by the cloned amounts, as creating them one by
 * one would.
 */
async function seedTenant(biaCount: number, entriesPerBia: number) {
  const tenantId = crypto.randomUUID();
  await putTenant(tenantId);
  const token = await tokenFor(tenantId, 'TenantOwner');
  const B = '/api/bcm/admin';
  const first = await invoke({ method: 'POST', path: `${B}/bia`, token, body: { title: 'BIA 0' } });
  if (first.status !== 201) throw new Error(`Creating a BIA answered ${first.status}`);
  const firstId = first.json.result.id as string;
  const due = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const entry = await invoke({
    method: 'POST',
    path: `${B}/bia/${firstId}/entries`,
    token,
    body: { briefDescription: 'Entry 0', completeAt: due },
  });
  if (entry.status !== 201) throw new Error(`Creating an entry answered ${entry.status}`);
  const c = client();
  const read = async (pk: string) =>
    (
      await c.send(
        new QueryCommand({
          TableName: config.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
        }),
      )
    ).Items ?? [];
  const biaTemplate = (await read(bia.collection(tenantId))).find((i) => i.id === firstId)!;
  const entryTemplate = (await read(bia.entries(tenantId, firstId))).find((i) => i.id === entry.json.result.id)!;
  const items: Record<string, unknown>[] = [];
  const newest = Date.parse(String(biaTemplate.createdAt));
  for (let b = 0; b < biaCount; b++) {
    const biaId = b === 0 ? firstId : crypto.randomUUID();
    const createdAt = new Date(newest - b * 1000).toISOString();
    if (b > 0)
      items.push({
        ...biaTemplate,
        ...bia.key(tenantId, biaId),
        ...keys.newestFirst(bia.collection(tenantId), createdAt, biaId),
        id: biaId,
        title: `BIA ${b}`,
        createdAt,
      });
    for (let e = b === 0 ? 1 : 0; e < entriesPerBia; e++) {
      const id = crypto.randomUUID();
      const clone: Record<string, unknown> = {
        ...entryTemplate,
        ...bia.entryKey(tenantId, biaId, id),
        id,
        briefDescription: `Entry ${b}.${e}`,
      };
      if (clone.gsi2pk) clone.gsi2sk = `${due}#E#${id}`;
      items.push(clone);
    }
  }
  await batchPut(c, items);
  await c.send(
    new UpdateCommand({
      TableName: config.tableName,
      Key: bcmConfig.stats(tenantId),
      UpdateExpression: 'ADD biasTotal :b, entriesTotal :e',
      ExpressionAttributeValues: { ':b': biaCount - 1, ':e': biaCount * entriesPerBia - 1 },
    }),
  );
  return { token };
}

/** `GET /api/bcm/admin/dashboard` for a tenant with 10 BIAs and one with 1,000 BIAs and 20,000 entries. */
export async function measureDashboardScale(
  h: Harness,
  sizes: [number, number][] = [
    [10, 2],
    [1000, 20],
  ],
  iterations = 25,
): Promise<DashboardScale> {
  const t0 = performance.now();
  const tenants = [];
  for (const [biaCount, perBia] of sizes)
    tenants.push({ biaCount, entries: biaCount * perBia, ...(await seedTenant(biaCount, perBia)) });
  const seedSeconds = (performance.now() - t0) / 1000;
  const points: DashboardPoint[] = [];
  for (const t of tenants) {
    const req = { method: 'GET', path: '/api/bcm/admin/dashboard', token: t.token };
    h.recorder.label = `dashboard of ${t.biaCount} BIAs`;
    const { first, requests, capacity, medianMs } = await measureRoute(h, req, iterations);
    if (first.status !== 200) throw new Error(`dashboard answered ${first.status}`);
    const r = first.json.result;
    points.push({
      bias: t.biaCount,
      entries: t.entries,
      requests,
      capacity,
      medianMs,
      totalAssessments: r.totalAssessments,
      totalEntries: r.biaProgressOverview.totalEntries,
    });
  }
  const pass = points.every(
    (p) =>
      p.requests === points[0]!.requests &&
      p.requests <= 3 &&
      p.totalAssessments === p.bias &&
      p.totalEntries === p.entries,
  );
  return { seedSeconds, points, pass };
}
