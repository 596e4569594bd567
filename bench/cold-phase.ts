import { join } from 'node:path';
import { issueAccessToken } from '#shared/auth/access-token.ts';
import { signingParams } from '#shared/auth/signing-keys.ts';
import { parameterStore } from '#shared/platform/ports.ts';
import {
  answerEnv,
  answerFloorFor,
  floorClientsOf,
  measureColdAnswer,
  writeEvent,
  type ColdAnswer,
  type FloorRead,
} from './cold-answer.ts';
import { invoke, prepare, type BenchRequest, type Harness } from './harness.ts';
import type { ReadResult } from './reads.ts';
export { COLD_ANSWER_TARGET } from './report.ts';
import { startSsmStandIn } from '#local/ssm-stand-in.ts';

/** Rounds per function: at 11 the ratio of one function moved by about 0.03 between runs. */
export const DEFAULT_ANSWER_RUNS = 11;

export interface ColdAnswerRow extends ColdAnswer {
  routeId: string;
  kind: ReadResult['kind'];
  caller: string;
  /** The floor: its clients and size. */
  floorKey: string;
  floorKb: number;
  /** What the floor reads after the token: the function's own first DynamoDB read. */
  floorRead: string;
  note?: string;
}

/** BENCH_CPU_PROF=<dir>: every cold process writes a CPU profile there (`--cpu-prof`), one folder per function and floor. */
const profileArgs = (name: string) =>
  process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.BENCH_CPU_PROF, name)}`, '--cpu-prof-interval=100']
    : [];

const KIND_RANK = { 'get-by-id': 0, list: 1, other: 2 } as const;

/**
 * The request a function's cold first answer is timed on: its GET by id, else its cheapest GET that
 * reads DynamoDB (fewest requests), called with a bearer token whenever the function has such a route
 * (measured reads only: the route answered 2xx on a warm instance).
 */
export function pickColdRead(reads: readonly ReadResult[], group: string): { read: ReadResult; note?: string } | null {
  const answered = reads.filter(
    (r) => r.group === group && r.request && r.status !== null && r.status >= 200 && r.status < 300,
  );
  // A bearer token first, a GET by id first, then a route that reads DynamoDB as the floor does (a
  // route that reads nothing answers from code the floor does not have), the fewest requests first.
  const rank = (r: ReadResult) => [
    r.request!.token ? 0 : 1,
    r.kind === 'get-by-id' ? 0 : 1,
    r.requests ? 0 : 1,
    r.requests ?? 99,
    KIND_RANK[r.kind],
  ];
  const sorted = [...answered].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x.reduce((d, v, i) => d || v - y[i]!, 0);
  });
  const read = sorted[0];
  if (!read) return null;
  if (!read.request!.token)
    return { read, note: 'no GET route with a bearer token: the cheapest GET, unauthenticated' };
  if (read.kind !== 'get-by-id') {
    const byId = reads.filter((r) => r.group === group && r.kind === 'get-by-id').map((r) => r.routeId);
    const why = byId.length ? `its GET by id (${byId.join(', ')}) found no seeded record` : 'no GET by id route';
    return { read, note: `${why}: its cheapest authenticated GET (${read.kind})` };
  }
  return { read };
}

/** A fresh token for the same caller: the seeded tokens may have expired by the time a late function runs. */
async function freshToken(token: string): Promise<string> {
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
    sub: string;
    tid: string | null;
    roles: string[];
    perms: string[];
    email: string;
  };
  const { accessToken } = await issueAccessToken({
    userId: claims.sub,
    tenantId: claims.tid,
    roles: claims.roles,
    permissions: claims.perms,
    email: claims.email,
  });
  return accessToken;
}

/** The function's own first DynamoDB read on this request (a warm call in this process, recorded). */
async function firstRead(h: Harness, request: BenchRequest): Promise<FloorRead | null> {
  h.recorder.reset();
  const res = await invoke(request);
  if (res.status < 200 || res.status >= 300) throw new Error(`answered ${res.status} in process`);
  const reads = h.recorder.sends.filter((s) => s.ctor.name === 'GetCommand' || s.ctor.name === 'QueryCommand');
  // The read that found the record (a rate-limit or entitlement read may come first and find nothing).
  const found = (s: (typeof reads)[number]) => {
    const o = s.output as { Item?: unknown; Items?: unknown[] } | undefined;
    return !!o?.Item || !!o?.Items?.length;
  };
  const send = reads.find(found) ?? reads[0];
  return send ? { command: send.ctor.name as FloorRead['command'], input: send.input } : null;
}

export interface ColdAnswerTarget {
  name: string;
  outfile: string;
}

/**
 * Times each function's cold first answer against its floor; `runsFor` says how many rounds the
 * function gets (the full bench shrinks them to fit its time budget). A function whose request
 * cannot be timed gets a note instead.
 */
export async function measureColdAnswers(
  h: Harness,
  targets: readonly ColdAnswerTarget[],
  reads: readonly ReadResult[],
  runsFor: (index: number) => number,
  step: (text: string) => void,
): Promise<Map<string, ColdAnswerRow | { note: string }>> {
  const ssm = await startSsmStandIn(await parameterStore());
  const out = new Map<string, ColdAnswerRow | { note: string }>();
  try {
    for (const [i, target] of targets.entries()) {
      const picked = pickColdRead(reads, target.name);
      if (!picked) {
        out.set(target.name, { note: 'no GET route answered in the bench: no cold first answer' });
        continue;
      }
      const { read } = picked;
      try {
        const request = {
          ...read.request!,
          ...(read.request!.token ? { token: await freshToken(read.request!.token) } : {}),
        };
        const floorRead = await firstRead(h, request);
        const eventFile = await writeEvent(target.name, prepare(request).event());
        const floor = await answerFloorFor(floorClientsOf(target.name));
        const env = answerEnv({
          dynamoEndpoint: h.dynamo.endpoint,
          ssmEndpoint: ssm.endpoint,
          jwksParameter: signingParams().publicJwks,
          floorRead,
        });
        const runs = runsFor(i);
        step(`cold first answer ${target.name}: GET ${read.path} (${read.kind}) vs floor ${floor.key}, ${runs} rounds`);
        const answer = await measureColdAnswer(
          { file: target.outfile, eventFile, env, nodeArgs: profileArgs(target.name) },
          { file: floor.outfile, eventFile, env, nodeArgs: profileArgs(`floor-${floor.key}`) },
          runs,
        );
        out.set(target.name, {
          ...answer,
          routeId: read.routeId,
          kind: read.kind,
          caller: read.caller,
          floorKey: floor.key,
          floorKb: Math.round(floor.bytes / 102.4) / 10,
          floorRead: floorRead ? `${floorRead.command.replace(/Command$/, '')}` : 'none',
          ...(picked.note ? { note: picked.note } : {}),
        });
      } catch (err) {
        out.set(target.name, { note: `cold first answer failed: ${(err as Error).message.slice(0, 300)}` });
      }
    }
  } finally {
    await ssm.close();
  }
  return out;
}
