import { join } from 'node:path';
import type { ParameterStore } from '#shared/platform/ports.ts';
import { readJson, serialized, writeJson } from './json-file.ts';

interface StoredParameter {
  type: 'String' | 'SecureString';
  versions: { version: number; value: string; lastModified: string }[];
}

type ParameterFile = Record<string, StoredParameter>;

/** SSM's `name:version` selector. */
const SELECTOR = /^(.*):(\d+)$/;

/**
 * The local SSM Parameter Store: one JSON file in LOCAL_DATA_DIR with every version of every
 * parameter. The file is read on each call, so another process pointed at the same directory
 * (the e2e tests minting tokens) sees the server's keys. `readOnly` is for such readers.
 */
export function fileParameterStore(
  dataDir: string,
  opts: { readOnly?: boolean } = {},
): ParameterStore & {
  versions(name: string): { version: number; value: string }[];
} {
  const file = join(dataDir, 'parameters.json');
  const load = () => readJson<ParameterFile>(file, {});
  const exclusive = serialized();

  // Like SSM, a SecureString read without decryption yields ciphertext, so code that forgets
  // `decrypt` fails here too rather than only in AWS.
  const visible = (p: StoredParameter, value: string, decrypt = true) =>
    p.type === 'SecureString' && !decrypt ? `local-kms:${Buffer.from(value).toString('base64')}` : value;

  return {
    async get(name, { decrypt } = {}) {
      const [, base = name, wanted] = SELECTOR.exec(name) ?? [];
      const p = load()[base];
      const v = wanted ? p?.versions.find((x) => x.version === Number(wanted)) : p?.versions.at(-1);
      return p && v ? { value: visible(p, v.value, decrypt), version: v.version } : null;
    },
    put(name, value, { secure = true, overwrite = true } = {}) {
      if (opts.readOnly) return Promise.reject(new Error('This parameter store is read-only'));
      return exclusive(() => {
        const params = load();
        const existing = params[name];
        if (existing && !overwrite) {
          throw Object.assign(new Error(`Parameter ${name} already exists`), { name: 'ParameterAlreadyExists' });
        }
        const version = (existing?.versions.at(-1)?.version ?? 0) + 1;
        const versions = [...(existing?.versions ?? []), { version, value, lastModified: new Date().toISOString() }];
        params[name] = { type: secure ? 'SecureString' : 'String', versions };
        writeJson(file, params);
        return { version };
      });
    },
    delete(name) {
      if (opts.readOnly) return Promise.reject(new Error('This parameter store is read-only'));
      return exclusive(() => {
        const params = load();
        if (!params[name]) return false;
        delete params[name];
        writeJson(file, params);
        return true;
      });
    },
    async listByPath(path, { decrypt } = {}) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      return Object.entries(load())
        .filter(([name]) => name.startsWith(prefix))
        .map(([name, p]) => {
          const latest = p.versions.at(-1)!;
          return {
            name,
            value: visible(p, latest.value, decrypt),
            version: latest.version,
            lastModified: latest.lastModified,
          };
        });
    },
    versions: (name) => (load()[name]?.versions ?? []).map(({ version, value }) => ({ version, value })),
  };
}
