import { issueAccessToken, verifyAccessToken } from '#shared/auth/access-token.ts';
import { hashPassword, scryptParams, verifyPassword } from '#areas/identity/password.ts';
import { invoke, prepare, type Harness } from './harness.ts';
import { median, percentile } from './stats.ts';

/** The label comes from the code's own cost parameters, so it cannot drift from them. */
const cost = scryptParams();
const SCRYPT_LABEL = `scrypt N=2^${Math.log2(cost.N)}, r=${cost.r}, p=${cost.p}`;

export interface AuthResult {
  signIn: {
    method: string;
    runs: number;
    medianMs: number;
    ddbRequests: number | null;
    commands?: string[];
    note?: string;
  };
  jwtVerify: {
    runs: number;
    medianMs: number;
    p90Ms: number;
    /** DynamoDB requests and parameter-store reads during all verifications after the first. */
    ddbRequests: number;
    paramReads: number;
    pass: boolean;
  };
}

const subject = (tenantId: string) => ({
  userId: crypto.randomUUID(),
  tenantId,
  roles: ['TenantOwner'],
  permissions: ['suppliers:read'],
  email: 'owner@bench.example',
});

/**
 * `POST /api/auth/login` as the seeded owner, each run from its own IP (sign-in is rate-limited
 * per IP). Falls back to its dominant parts, verifying a password against a stored scrypt hash at
 * the production parameters and issuing the access token, when the route cannot be used.
 */
async function measureSignIn(h: Harness, runs: number): Promise<AuthResult['signIn']> {
  const login = prepare({ method: 'POST', path: '/api/auth/login' });
  let note: string | undefined;
  if (login.route?.id === 'auth.login' && h.owner) {
    const times: number[] = [];
    let ddbRequests = 0;
    let commands: string[] = [];
    let failure: string | undefined;
    for (let i = 0; i <= runs && !failure; i++) {
      h.recorder.reset();
      const t = performance.now();
      const res = await invoke({ method: 'POST', path: '/api/auth/login', body: h.owner, ip: `203.0.113.${10 + i}` });
      const ms = performance.now() - t;
      if (res.status !== 200 || !res.json?.result?.accessToken)
        failure = `answered ${res.status} ${res.json?.error?.code ?? 'without a token'}`;
      else if (i > 0) {
        times.push(ms);
        ddbRequests = Math.max(ddbRequests, h.recorder.requests.length);
        commands = h.recorder.requests.map((r) => r.command.replace(/Command$/, ''));
      }
    }
    if (!failure)
      return { method: `POST /api/auth/login (${SCRYPT_LABEL})`, runs, medianMs: median(times), ddbRequests, commands };
    note = `POST /api/auth/login ${failure}; measured its parts instead`;
  } else {
    note = 'no sign-in route or stored owner yet; measured its parts';
  }
  const password = 'correct horse battery staple';
  const stored = await hashPassword(password);
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = performance.now();
    if (!(await verifyPassword(password, stored))) throw new Error('verifyPassword rejected the right password');
    await issueAccessToken(subject(h.tenantId));
    if (i > 0) times.push(performance.now() - t);
  }
  return {
    method: `verifyPassword (${SCRYPT_LABEL}) + issueAccessToken`,
    runs,
    medianMs: median(times),
    ddbRequests: null,
    note,
  };
}

/** verifyAccessToken with the key imported once (the first call), then `runs` timed calls. */
async function measureVerify(h: Harness, runs: number) {
  const { accessToken } = await issueAccessToken(subject(h.tenantId));
  await verifyAccessToken(accessToken);
  h.recorder.reset();
  const readsBefore = h.paramReads();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await verifyAccessToken(accessToken);
    times.push(performance.now() - t);
  }
  const ddbRequests = h.recorder.requests.length;
  const paramReads = h.paramReads() - readsBefore;
  return {
    runs,
    medianMs: median(times),
    p90Ms: percentile(times, 90),
    ddbRequests,
    paramReads,
    pass: ddbRequests === 0 && paramReads === 0,
  };
}

export async function measureAuth(h: Harness, signInRuns = 7, verifyRuns = 2000): Promise<AuthResult> {
  h.recorder.label = 'authentication';
  return { signIn: await measureSignIn(h, signInRuns), jwtVerify: await measureVerify(h, verifyRuns) };
}
