import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersByPathCommand,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
  type SSMClientConfig,
} from '@aws-sdk/client-ssm';
import type { ParameterStore } from './ports.ts';

/*
 * SSM is inside every bundle (lib/bundling.ts), imported here by name so esbuild keeps only these
 * commands. ports.ts imports this module at start, since every first request that carries a token
 * reads the signing keys through it; the client itself is made on the port's first use. Never
 * `import()` this module as well: esbuild would then wrap it and keep every export of the SSM client.
 */

/**
 * SSM allows about 40 TPS per account and region by default. Throttled calls are retried by the
 * SDK's adaptive mode (exponential backoff with jitter plus a client-side rate limiter) for up
 * to 8 attempts; what still fails surfaces as ThrottlingException, which the API maps to 503.
 */
export const SSM_RETRY = { maxAttempts: 8, retryMode: 'adaptive' } as const satisfies SSMClientConfig;

export function createSsmClient(overrides: SSMClientConfig = {}): SSMClient {
  return new SSMClient({ ...SSM_RETRY, ...overrides });
}

/** SSM Parameter Store; SecureString writes use the stack's KMS key when VAULT_KMS_KEY_ID is set. */
export async function createSsmParameterStore(given?: SSMClient): Promise<ParameterStore> {
  const client = given ?? createSsmClient();
  return {
    async get(name, opts = {}) {
      try {
        const out = await client.send(new GetParameterCommand({ Name: name, WithDecryption: opts.decrypt ?? true }));
        return out.Parameter?.Value === undefined
          ? null
          : { value: out.Parameter.Value, version: out.Parameter.Version ?? 1 };
      } catch (err) {
        if (err instanceof ParameterNotFound) return null;
        throw err;
      }
    },
    async put(name, value, opts = {}) {
      const secure = opts.secure ?? true;
      const out = await client.send(
        new PutParameterCommand({
          Name: name,
          Value: value,
          Type: secure ? 'SecureString' : 'String',
          ...(secure && process.env.VAULT_KMS_KEY_ID ? { KeyId: process.env.VAULT_KMS_KEY_ID } : {}),
          Overwrite: opts.overwrite ?? true,
          Tier: 'Standard',
        }),
      );
      return { version: out.Version ?? 1 };
    },
    async delete(name) {
      try {
        await client.send(new DeleteParameterCommand({ Name: name }));
        return true;
      } catch (err) {
        if (err instanceof ParameterNotFound) return false;
        throw err;
      }
    },
    async listByPath(path, opts = {}) {
      const found: { name: string; value: string; version: number; lastModified?: string }[] = [];
      let NextToken: string | undefined;
      do {
        const page = await client.send(
          new GetParametersByPathCommand({
            Path: path,
            Recursive: true,
            WithDecryption: opts.decrypt ?? true,
            NextToken,
          }),
        );
        for (const p of page.Parameters ?? []) {
          if (p.Name && p.Value !== undefined) {
            found.push({
              name: p.Name,
              value: p.Value,
              version: p.Version ?? 1,
              lastModified: p.LastModifiedDate?.toISOString(),
            });
          }
        }
        NextToken = page.NextToken;
      } while (NextToken);
      return found;
    },
  };
}
