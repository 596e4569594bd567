import { describe, expect, it } from 'vitest';
import { invoke } from '#test/support/invoke.ts';

/** HEAD through the runtime, as API Gateway sends it to the group's function: the GET's answer without its body. */
describe('HEAD on a public GET route', () => {
  it('answers /api/ai/widget.js with the status and headers of its GET, and no body', async () => {
    const get = await invoke('GET', '/api/ai/widget.js');
    const head = await invoke('HEAD', '/api/ai/widget.js');
    expect(get).toAnswer(200);
    expect(head).toAnswer(200);
    expect(head.text).toBe('');
    expect(head.headers).toEqual(get.headers);
  });

  it('answers a HEAD on an authenticated GET route 405 with its Allow, as the deployed API does', async () => {
    const res = await invoke('HEAD', '/api/ai/calendars');
    expect(res).toAnswer(405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow ?? res.headers.Allow).toContain('GET');
  });
});
