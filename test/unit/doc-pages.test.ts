import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedScript, PRELUDE, shellBlocks } from '#test/support/doc-pages.ts';
import { bash } from '#test/support/run-doc-page.ts';

const DOCS = fileURLToPath(new URL('../../docs/try/', import.meta.url));

describe('docs/try/README.md', () => {
  it('lists every page of the folder once', () => {
    const readme = readFileSync(`${DOCS}README.md`, 'utf8');
    const listed = [...readme.matchAll(/^\| \[([a-z-]+\.md)\]/gm)].map((m) => m[1]);
    const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect([...listed].sort()).toEqual(pages.sort());
  });
});

/** A server that answers each path with the status and body it names. */
let server: Server;
let B: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const status = Number(req.url!.split('/')[1]);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status >= 400 ? '{"success":false,"error":{"code":"NOT_FOUND"}}' : '{"result":{"id":"x1"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  B = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const run = (block: string) => bash(`${PRELUDE}B=${B}\n${checkedScript(block)}`, 10_000);

describe('running a page block', () => {
  it('passes when every step answers what its comment says', async () => {
    const block = [
      'curl -s $B/200        # 200 fine',
      'curl -s $B/404        # 404 NOT_FOUND',
      'ID=$(curl -s $B/201 \\',
      '  | sed -n \'s/.*"id":"\\([^"]*\\)".*/\\1/p\')',
      'curl -s $B/204 -H "x: $ID" -d \'{"a":',
      '  "b"}\'   # 204',
    ].join('\n');
    const result = await run(block);
    expect(result.code, result.output).toBe(0);
  });

  it('fails on another status, another error code, or an empty capture', async () => {
    for (const block of [
      'curl -s $B/200   # 201',
      'curl -s $B/404   # 404 CONFLICT',
      'ID=$(curl -s $B/200 | sed -n \'s/.*"missing":"\\([^"]*\\)".*/\\1/p\')',
      'curl -s $B/200 -d \'{"a":\n  "b"}\'   # 404',
      'false',
    ]) {
      const result = await run(block);
      expect(result.code, block).not.toBe(0);
    }
  });

  it('reads only sh and bash blocks', () => {
    expect(shellBlocks('```sh\na\n```\n```json\nb\n```\n```bash\nc\n```\n')).toEqual(['a\n', 'c\n']);
  });
});
