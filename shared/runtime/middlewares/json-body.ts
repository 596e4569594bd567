import httpJsonBodyParser from '@middy/http-json-body-parser';
import { invalidJson, payloadTooLarge, unsupportedMediaType } from '#shared/http/errors.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

const parser = httpJsonBodyParser();

const byteLength = (event: MiddyRequest['event']) =>
  event.body === undefined
    ? 0
    : event.isBase64Encoded
      ? Math.floor((event.body.length * 3) / 4)
      : Buffer.byteLength(event.body);

/**
 * Size check, then middy's JSON parser on routes that take a JSON body. Its two failures
 * (wrong content type, malformed JSON) are both 415 there; the envelope separates them.
 */
export const jsonBody = () => ({
  before: async (request: MiddyRequest) => {
    const { state } = request.context;
    const route = state.route!;
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (byteLength(request.event) > limit) throw payloadTooLarge(limit, route.tooLargeMessage);
    state.rawBody = request.event.body;
    if (!route.body || (route.bodyType ?? 'json') !== 'json') return;
    try {
      await parser.before!(request as never);
    } catch (err) {
      if ((err as Error).message === 'Unsupported Media Type') throw unsupportedMediaType('application/json');
      throw invalidJson();
    }
    state.body = request.event.body;
  },
});
