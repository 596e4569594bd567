import { generateSigningKeyParams } from '#shared/auth/signing-keys.ts';

// Prints a fresh ES256 key pair as the two SSM parameter values a stage needs before deploy.
const { publicJwks, privateJwk } = await generateSigningKeyParams();
console.log(JSON.stringify({ 'auth/jwt-public-jwks': publicJwks, 'auth/jwt-private-jwk': privateJwk }, null, 2));
