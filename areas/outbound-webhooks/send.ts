import { requestPinned, type PinnedTarget } from '#shared/http/pinned-request.ts';

/** What a receiver gets to answer: a slow one counts as failed and is retried. */
const TIMEOUT_MS = 10_000;
/** A receiver's answer is read only this far (its status is what counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

export type SendOutcome = { statusCode: number } | { error: string };

/** One POST to the address checked before it (the lookup is pinned to it); no redirect is followed. */
export async function postPinned(
  target: PinnedTarget,
  headers: Record<string, string>,
  body: string,
): Promise<SendOutcome> {
  try {
    const answer = await requestPinned(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      deadline: Date.now() + TIMEOUT_MS,
      maxBytes: MAX_ANSWER_BYTES,
      overLimit: 'cut',
    });
    return { statusCode: answer.status };
  } catch (err) {
    const message = (err as Error).message;
    return {
      error:
        message === 'The request timed out' ? 'The receiver did not answer in time' : message || 'The request failed',
    };
  }
}
