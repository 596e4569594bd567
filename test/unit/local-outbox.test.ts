import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileOutbox } from '#local/outbox.ts';
import { tempDir } from '#test/support/temp-dir.ts';

describe('file outbox (SES stand-in)', () => {
  it('appends every e-mail in send order, even when sent concurrently', async () => {
    // Prepare
    const dir = tempDir('local-outbox-');
    const outbox = fileOutbox(dir);
    const mail = (n: number) => ({ to: [`u${n}@example.com`], subject: `s${n}`, text: `t${n}`, html: `<p>${n}</p>` });

    // Act
    await Promise.all([1, 2, 3, 4, 5].map((n) => outbox.send(mail(n))));
    await fileOutbox(dir).send(mail(6));

    // Assess
    const listed = outbox.list();
    expect(listed.map((m) => m.subject)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
    expect(listed[0]).toEqual({
      ...mail(1),
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(JSON.parse(readFileSync(join(dir, 'outbox.json'), 'utf8'))).toEqual(listed);
  });

  it('lists nothing before the first e-mail', () => {
    expect(fileOutbox(tempDir('local-outbox-')).list()).toEqual([]);
  });
});
