import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { newTenant } from '#test/support/fixtures.ts';
import { tokenFor } from '#test/support/tokens.ts';
import { addText, newBase, retrieveAs, settled, useKnowledgeStandIns } from '#test/support/knowledge.ts';

/**
 * Retrieval quality over the project's own README and decisions: each question names a phrase
 * the right chunk holds; hybrid retrieval must rank such a chunk in the top 3 for at least 90% of
 * the questions. The figure is printed. Phrases come from long-standing sections; a phrase that
 * disappears from the documents fails the test rather than silently lowering the bar.
 */
useKnowledgeStandIns();

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CORPUS = [
  'README.md',
  ...readdirSync(`${ROOT}docs/decisions`)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/decisions/${f}`),
];
const QUESTIONS: { q: string; phrase: string }[] = [
  { q: 'Which Java version does DynamoDB Local need to run?', phrase: 'Java 17+ (for DynamoDB Local)' },
  {
    q: 'What is the local stand-in for S3 and its addressing?',
    phrase: '| S3 | `s3rver` behind a front checking presigned V4 signatures',
  },
  {
    q: 'What scrypt parameters and salt are used for password hashes?',
    phrase: 'scrypt N=2^17, r=8, p=1 (OWASP), 16-byte salt',
  },
  {
    q: 'How many requests does the auth-signin rate limit counter allow per 60 s?',
    phrase: '| `auth-signin` | 5 / 60 s |',
  },
  {
    q: 'After how many receives does a failing webhook message go to the dead-letter queue?',
    phrase: 'goes to the dead-letter queue after 5 receives',
  },
  {
    q: 'How do larger media files up to 10 MB get uploaded with a presigned upload?',
    phrase: 'Larger files up to 10 MB: `POST .../media/presigned-upload`',
  },
  { q: 'Which Node.js runtime and arm64 bundles do the Lambda functions use?', phrase: 'Functions: Node.js 24' },
  {
    q: 'Where does the $default route go, and what does the fallback function answer?',
    phrase: '`$default` goes to the fallback function',
  },
  {
    q: 'At what scrypt cost N do the test tiers hash passwords (SCRYPT_TEST_LOG2_N)?',
    phrase: 'The test tiers hash at N=2^12',
  },
  { q: 'How is the SES outbox read locally?', phrase: '| SES | outbox file | `GET /_local/outbox` |' },
  {
    q: 'Where do the CORS origins of both front doors come from?',
    phrase: 'CORS of both front doors comes from `corsOrigins`',
  },
  {
    q: 'What does the vault answer for an unknown key or a deleted key?',
    phrase: 'An unknown key and a deleted key are both 404',
  },
  { q: 'What maxAttempts and retryMode does the SSM client use?', phrase: 'The SSM client uses `maxAttempts: 8`' },
  { q: 'How are translation locales canonicalized, like de-de?', phrase: 'Translation locales are canonicalized' },
  {
    q: 'How is the risk probabilityScore computed from the highest assessment score?',
    phrase: '`probabilityScore` = the highest assessment score',
  },
  { q: 'How does a renewal success move the renewalDate?', phrase: 'Renewal success moves `renewalDate`' },
  {
    q: 'Which security schemes does the OpenAPI document declare, bearerAuth and internalApiKey?',
    phrase: '**Security schemes**: `bearerAuth`',
  },
  {
    q: 'What is the flow bound to, the client that started it with clientBinding?',
    phrase: '**The flow is bound to the client that started it**',
  },
  {
    q: 'What does npm start start as embedded stand-ins for AWS?',
    phrase: '`npm start` starts embedded stand-ins for AWS',
  },
  {
    q: 'Where does the webhook worker create the event marker WH provider event id?',
    phrase: "worker creates the event's marker",
  },
];

let owner: string;
let kbId: string;

beforeAll(async () => {
  // The project's own docs outgrew a Starter month's 100,000 tokens: an Enterprise tenant embeds them all.
  owner = await tokenFor({ tenantId: await newTenant({ maxKnowledgeBases: 1, planType: 2 }) });
  kbId = (await newBase(owner)).id;
  for (const file of CORPUS) {
    const res = await addText(owner, kbId, file, readFileSync(`${ROOT}${file}`, 'utf8'));
    expect(res).toAnswer(202);
    const done = await settled(owner, kbId, res.json.result.id, 60_000);
    expect(done.status, `${file}: ${JSON.stringify(done)}`).toBe('Indexed');
  }
}, 120_000);

it('hybrid retrieval ranks the right chunk in the top 3 for at least 90% of the questions', async () => {
  const figures: Record<string, number> = {};
  let hybridMisses: string[] = [];
  for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
    const misses: string[] = [];
    for (const { q, phrase } of QUESTIONS) {
      const hits = await retrieveAs(owner, kbId, { query: q, mode, topK: 3 });
      if (!hits.some((h) => h.text.includes(phrase))) misses.push(q);
    }
    figures[mode] = (QUESTIONS.length - misses.length) / QUESTIONS.length;
    if (mode === 'hybrid') hybridMisses = misses;
  }
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  console.log(
    `knowledge retrieval quality, top-3 over ${QUESTIONS.length} questions: hybrid ${pct(figures.hybrid!)}, ` +
      `keyword ${pct(figures.keyword!)}, semantic ${pct(figures.semantic!)}` +
      (hybridMisses.length ? `; hybrid missed: ${hybridMisses.join(' | ')}` : ''),
  );
  expect(figures.hybrid).toBeGreaterThanOrEqual(0.9);
}, 60_000);

it('every question names a phrase the documents hold', () => {
  const corpus = CORPUS.map((f) => readFileSync(`${ROOT}${f}`, 'utf8')).join('\n');
  expect(QUESTIONS.filter(({ phrase }) => !corpus.includes(phrase)).map((x) => x.phrase)).toEqual([]);
});
