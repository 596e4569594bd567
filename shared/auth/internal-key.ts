import { config } from '#shared/platform/config.ts';
import { parameterStore } from '#shared/platform/ports.ts';

let cached: Promise<string> | undefined;

/** The internal API key: `INTERNAL_API_KEY` locally, an SSM SecureString in AWS (read once). */
export function internalApiKey(): Promise<string> {
  cached ??= (async () => {
    if (process.env.INTERNAL_API_KEY) return process.env.INTERNAL_API_KEY;
    const stored = await (await parameterStore()).get(`${config.paramPrefix}/internal-api-key`, { decrypt: true });
    if (!stored) throw new Error('Internal API key is not configured');
    return stored.value;
  })().catch((err) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

export const resetInternalKeyCache = () => {
  cached = undefined;
};
