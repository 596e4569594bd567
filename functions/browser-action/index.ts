import { browserAction } from '#areas/tools/browser/run-invocation.ts';
import { assertSettings, requiredSettings } from '#shared/platform/config.ts';
import { INVOKED } from '#shared/routes/groups.ts';

/** Invoked by the agent runtime (Lambda Invoke, RequestResponse): one Browser Action tool call. */
export const handler = (event: unknown) => {
  assertSettings(requiredSettings(INVOKED['browser-action']));
  return browserAction(event);
};
