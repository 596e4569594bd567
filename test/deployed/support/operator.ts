import { ensureAdmin } from '#local/bootstrap.ts';
import type { World } from './world.ts';

const ADMIN = { email: 'operator@platform.example', password: 'Operator-pass-2026!' };

/**
 * The stage's first SystemAdmin. No deployed path creates one (docs/operations.md, "What the deployed
 * tier cannot run"): the operator writes the account into the table, as the local server's bootstrap
 * does, here with this process's own DynamoDB client on the stand-in; then it signs in through the API.
 */
export async function operatorAdmin(w: World): Promise<string> {
  const table = w.stack.template.ofType('AWS::DynamoDB::Table')[0]![0];
  process.env.TABLE_NAME = w.stack.template.ref(table);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = w.stack.endpoints.dynamodb;
  process.env.ADMIN_PASSWORD = ADMIN.password;
  await ensureAdmin(ADMIN.email);
  const login = await w.api('POST', '/api/auth/login', { body: ADMIN, from: '127.0.0.3' });
  if (login.status !== 200) throw new Error(`The operator's admin cannot sign in: ${login.text}`);
  return login.json.result.accessToken as string;
}
