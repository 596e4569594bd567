/**
 * `npm start`: the whole API on this machine, against local stand-ins for AWS (see local/stack.ts).
 * Environment: PORT (3000; 0 picks a free one), HOST (127.0.0.1; beyond loopback only with
 * LOCAL_ALLOW_REMOTE=1), LOCAL_DATA_DIR (.local), ADMIN_EMAIL, ADMIN_PASSWORD, INTERNAL_API_KEY, TABLE_NAME,
 * LOCAL_ALLOW_LOOPBACK_TARGETS (1: the tools may reach loopback hosts), LOCAL_MCP_PORT (the MCP stand-in's; 0 picks one).
 */
import { webhookSecrets } from '#areas/billing/secrets.ts';
import { loopbackTargetsAllowed } from '#shared/platform/config.ts';
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';

// Before any handler or SDK module loads: no real AWS account, region lookup or Node 20 banner.
process.env.AWS_SDK_JS_SUPPRESS_NODE_DEPRECATION_WARNING = '1';
// The SDK release installed here reads this name instead.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.AWS_ACCESS_KEY_ID ||= 'local';
process.env.AWS_SECRET_ACCESS_KEY ||= 'local';
process.env.AWS_REGION ||= 'us-east-1';
process.env.TABLE_NAME ||= 'saas-local';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST || '127.0.0.1';
const dataDir = resolve(process.env.LOCAL_DATA_DIR || '.local');

const { listenRefusal } = await import('#local/listen-guard.ts');
const refusal = listenRefusal(host);
if (refusal) {
  console.error(refusal);
  process.exit(1);
}

const { startLocalStack, JavaMissingError } = await import('#local/stack.ts');
const { DynamoLocalStartError } = await import('#local/dynamodb-local.ts');
const { createApiListener } = await import('#local/server.ts');
const { routes } = await import('#local/routes.ts');

let stack: Awaited<ReturnType<typeof startLocalStack>>;
try {
  stack = await startLocalStack(dataDir);
} catch (err) {
  console.error(err instanceof JavaMissingError || err instanceof DynamoLocalStartError ? err.message : err);
  process.exit(1);
}

// A real MCP server over HTTP (the official SDK's server side) for trying an MCP Server tool here.
const { startMcpStandIn } = await import('#local/mcp-stand-in.ts');
const mcp = await startMcpStandIn({ port: Number(process.env.LOCAL_MCP_PORT ?? 0) });

const server: Server = createServer(
  createApiListener({
    routes,
    pages: {
      '/_local/outbox': () => stack.outbox.list(),
      '/_local/dead-letters': () => stack.queue.deadLetters(),
      '/_local/mcp-stand-in': () => ({ url: mcp.url, tickets: mcp.tickets }),
    },
  }),
);
await new Promise<void>((done, fail) => server.once('error', fail).listen(port, host, done));
const { port: actualPort } = server.address() as { port: number };
const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
// Links in e-mails and the local identity providers' endpoints point at this very server.
process.env.PUBLIC_BASE_URL ||= baseUrl;
// The channel senders call the platforms' stand-ins on this server (local/channels.ts), never the platforms.
const { useLocalChannelEndpoints } = await import('#local/channels.ts');
useLocalChannelEndpoints(process.env.PUBLIC_BASE_URL);

const { admin, internalKey } = stack;
console.log(`Data directory: ${dataDir}`);
console.log(`DynamoDB Local at ${process.env.AWS_ENDPOINT_URL_DYNAMODB}`);
if (admin.status === 'exists') {
  console.log(
    `Admin account: ${admin.email} (exists; left unchanged${process.env.ADMIN_PASSWORD ? ', ADMIN_PASSWORD not applied' : ''})`,
  );
} else {
  console.log(
    `Admin account: ${admin.email} (created)${admin.generatedPassword ? `\nAdmin password (generated): ${admin.generatedPassword}` : ''}`,
  );
}
if (internalKey.source === 'generated')
  console.log(`Internal API key (generated, kept in ${dataDir}): ${internalKey.key}`);
if (internalKey.source === 'stored') console.log(`Internal API key: kept in ${dataDir}/parameters.json`);
for (const provider of ['payment-provider-a', 'payment-provider-b'] as const) {
  const fromEnv =
    provider === 'payment-provider-a' ? 'PAYMENT_PROVIDER_A_WEBHOOK_SECRET' : 'PAYMENT_PROVIDER_B_WEBHOOK_SECRET';
  const secret = (await webhookSecrets(provider))[0];
  console.log(
    `Webhook signing secret, ${provider}${process.env[fromEnv] ? ` (from ${fromEnv})` : ` (kept in ${dataDir}; set ${fromEnv} to choose one)`}: ${secret}`,
  );
}
if (loopbackTargetsAllowed())
  console.log(
    'LOCAL_ALLOW_LOOPBACK_TARGETS=1: the HTTP and database tools may reach loopback hosts (127.0.0.0/8, ::1)',
  );
console.log(
  `MCP stand-in at ${mcp.url} (tools lookup_order, create_ticket, fail_always, huge_report, slow_report; reachable with LOCAL_ALLOW_LOOPBACK_TARGETS=1)`,
);
if (stack.seeded) console.log(`Seeded ${stack.seeded} reference records (plans, built-in tools)`);
console.log(`Started in ${process.uptime().toFixed(1)} s`);
console.log(`API ready at ${baseUrl}`);

let stopping = false;
const shutdown = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  server.close();
  server.closeAllConnections();
  await mcp.close();
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown).on('SIGTERM', shutdown);
