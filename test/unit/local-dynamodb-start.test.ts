import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DynamoLocalStartError, startDynamoDbLocal } from '#local/dynamodb-local.ts';
import { tempDir } from '#test/support/temp-dir.ts';

/** A stand-in for `java`: a shell script, so no JVM starts and the test stays fast. */
function fakeJava(body: string): string {
  const path = join(tempDir('fake-java-'), 'java');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

describe('starting DynamoDB Local', () => {
  it('says what to check when Java is missing', async () => {
    const java = join(tempDir('no-java-'), 'java');
    const err = await startDynamoDbLocal({ java, timeoutMs: 5_000 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(DynamoLocalStartError);
    const message = (err as Error).message;
    expect(message).toMatch(/Java was not found/);
    expect(message).toContain(`${java} -version`);
    expect(message).toContain('JAVA_HOME');
    expect(message).toMatch(/DynamoDBLocal\.jar/);
  });

  it('says what Java printed and what to check when Java fails', async () => {
    const java = fakeJava('echo "Error: Unable to access jarfile" >&2; exit 1');
    const message = await startDynamoDbLocal({ java, timeoutMs: 5_000 }).catch((e: Error) => e.message);
    expect(message).toMatch(/exited with code 1/);
    expect(message).toContain('Unable to access jarfile');
    expect(message).toContain('JAVA_HOME');
  });

  it('waits no longer than the configured timeout, says it is still waiting, and stops the process', async () => {
    const pidFile = join(tempDir('slow-java-'), 'pid');
    const java = fakeJava(`echo $$ > ${pidFile}; exec sleep 60`);
    const lines: string[] = [];
    const started = Date.now();
    const message = await startDynamoDbLocal({
      java,
      timeoutMs: 1_500,
      progressEveryMs: 500,
      progress: (line) => lines.push(line),
    }).catch((e: Error) => e.message);
    const took = Date.now() - started;
    expect(message).toMatch(/did not answer in 1\.5 s/);
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(4_000);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^still waiting for DynamoDB Local \(\d+(\.\d)? s\)/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => gone(pid), { timeout: 2_000 }).toBe(true);
  });
});
