import { randomBytes } from 'node:crypto';
import { createSsmClient, createSsmParameterStore } from '#shared/platform/aws-params.ts';
import { generateSigningKeyParams } from '#shared/auth/signing-keys.ts';
import type { ParameterStore } from '#shared/platform/ports.ts';

/**
 * `npm run stage:init -- <stage> [--app saas]`: the parameters a stage needs before its first deploy,
 * created in SSM with the caller's credentials and region when absent (SecureStrings with SSM's own
 * key): the ES256 signing key pair and the internal API key. Run again, it creates nothing and says
 * so; it never prints a secret. The providers' client secrets are the providers' own values, set by
 * hand (docs/operations.md, "Before the first deploy").
 */
export async function initStage(
  store: ParameterStore,
  app: string,
  stage: string,
): Promise<{ created: string[]; kept: string[] }> {
  const prefix = `/${app}/${stage}`;
  const publicJwks = `${prefix}/auth/jwt-public-jwks`;
  const privateJwk = `${prefix}/auth/jwt-private-jwk`;
  const internalKey = `${prefix}/internal-api-key`;
  const created: string[] = [];
  const kept: string[] = [];
  const [pub, priv] = await Promise.all([store.get(publicJwks, { decrypt: false }), store.get(privateJwk)]);
  if (pub && priv) kept.push(publicJwks, privateJwk);
  else {
    // A pair half there is replaced whole: a public key set without its private key verifies nothing issued.
    const fresh = await generateSigningKeyParams();
    await store.put(privateJwk, fresh.privateJwk, { secure: true, overwrite: true });
    await store.put(publicJwks, fresh.publicJwks, { secure: false, overwrite: true });
    created.push(publicJwks, privateJwk);
  }
  if (await store.get(internalKey)) kept.push(internalKey);
  else {
    await store.put(internalKey, randomBytes(32).toString('base64url'), { secure: true, overwrite: false });
    created.push(internalKey);
  }
  return { created, kept };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const appAt = args.indexOf('--app');
  const app = appAt >= 0 ? args[appAt + 1] : 'saas';
  const stage = args.find((a, i) => !a.startsWith('--') && i !== appAt + 1);
  if (!stage || !app || !/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    console.error('Usage: npm run stage:init -- <stage> [--app <app>]  (stage: lowercase letters, digits, hyphens)');
    process.exit(2);
  }
  // The vault key is the stack's; these parameters exist before the stack does, so SSM's own key encrypts them.
  delete process.env.VAULT_KMS_KEY_ID;
  const { created, kept } = await initStage(await createSsmParameterStore(createSsmClient()), app, stage);
  for (const name of created) console.log(`created ${name}`);
  for (const name of kept) console.log(`exists  ${name}`);
  console.log(created.length ? `${created.length} parameter(s) created.` : 'Nothing to create: the stage is ready.');
}
