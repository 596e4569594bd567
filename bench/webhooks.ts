import { createServer } from 'node:http';
import { seedCatalog } from '#areas/llm-gateway/catalog.ts';
import { issueBotConnectorToken } from '#local/teams-issuer.ts';
import { useLocalChannelEndpoints } from '#local/channels.ts';
import { routes } from '#local/routes.ts';
import { createApiListener } from '#local/server.ts';
import {
  discordKeys,
  slackHeaders,
  teamsHeaders,
  telegramHeaders,
  whatsAppHeaders,
} from '#test/support/channel-signing.ts';
import { agentWidget } from './conversations.ts';
import { invoke, type Harness } from './harness.ts';
import { median, percentile } from './stats.ts';
import { type ColdWebhookRequest, measureColdWebhooks } from './webhooks-cold.ts';

/**
 * The webhooks phase of `npm run bench` (alone: `npm run bench:webhooks`): how long each platform
 * waits for the inbound webhook's 200, through the local server over HTTP as the platform calls it
 * (signature or Bot Connector JWT verified, event and message claimed, turn queued). The first
 * answer per platform in this process (its connection, secret and keys not yet read) is reported
 * beside the warm p50/p99, and the cold answer of a freshly started function (bench/webhooks-cold.ts:
 * a new Node process importing the connector bundle, median and worst of BENCH_WEBHOOK_COLD_RUNS per
 * platform); the platforms' deadlines are Slack and Discord 3 s, Teams 5 s.
 */
const ITERATIONS = Number(process.env.BENCH_WEBHOOK_ITERATIONS ?? 200);
/** Fresh processes per platform for the cold answer (each one a new Node, about a second); 0 skips it. */
const COLD_RUNS = Number(process.env.BENCH_WEBHOOK_COLD_RUNS ?? 7);
const round = (v: number) => Math.round(v * 1000) / 1000;
const nowSeconds = () => Math.floor(Date.now() / 1000);
let seq = 0;
const next = () => `${Date.now()}${++seq}`;

const SECRETS = {
  slack: 'bench-slack-signing',
  teams: Buffer.from('bench-teams-token').toString('base64'),
  whatsapp: 'bench-meta-app-secret',
  telegram: 'bench_telegram_secret',
};
const TEAMS_APP = '8f0e4b1c-0000-4000-8000-0000000000be';
const SERVICE_URL = 'https://smba.trafficmanager.net/emea/';

type Request = { body: string; headers: Record<string, string> };
const discord = discordKeys();

const teamsActivity = () =>
  JSON.stringify({
    type: 'message',
    id: next(),
    timestamp: new Date().toISOString(),
    serviceUrl: SERVICE_URL,
    channelId: 'msteams',
    from: { id: `29:${next()}`, name: 'Alan', aadObjectId: crypto.randomUUID() },
    conversation: { conversationType: 'personal', id: `a:${next()}` },
    recipient: { id: `28:${TEAMS_APP}`, name: 'Bot' },
    text: 'When do you open?',
  });

const PLATFORMS: Record<
  string,
  { type: string; settings?: Record<string, string>; secrets: Record<string, string>; request: () => Promise<Request> }
> = {
  slack: {
    type: 'slack',
    secrets: { 'signing-secret': SECRETS.slack, 'bot-token': 'xoxb-bench' },
    request: async () => {
      const ts = `${nowSeconds()}.${next().slice(-6)}`;
      const body = JSON.stringify({
        type: 'event_callback',
        event_id: `Ev${next()}`,
        event_time: nowSeconds(),
        event: { type: 'message', channel: 'D0BENCH', user: `U${next()}`, text: 'hi', ts, channel_type: 'im' },
      });
      return { body, headers: slackHeaders(SECRETS.slack, body, nowSeconds()) };
    },
  },
  'teams (outgoing webhook)': {
    type: 'teams',
    settings: { appId: TEAMS_APP },
    secrets: { 'security-token': SECRETS.teams, 'app-password': 'bench' },
    request: async () => {
      const body = teamsActivity();
      return { body, headers: teamsHeaders(SECRETS.teams, body) };
    },
  },
  'teams (bot)': {
    type: 'teams',
    settings: { appId: TEAMS_APP, mode: 'bot' },
    secrets: { 'app-password': 'bench' },
    request: async () => ({
      body: teamsActivity(),
      headers: {
        authorization: `Bearer ${await issueBotConnectorToken({ appId: TEAMS_APP, serviceUrl: SERVICE_URL })}`,
      },
    }),
  },
  whatsapp: {
    type: 'whatsapp',
    settings: { phoneNumberId: '106540352242922' },
    secrets: { 'app-secret': SECRETS.whatsapp, 'verify-token': 'v', 'access-token': 'EAAG-bench' },
    request: async () => {
      const from = `1650555${next().slice(-4)}`;
      const body = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '102290129340398',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550109999', phone_number_id: '106540352242922' },
                  contacts: [{ profile: { name: 'Kerry' }, wa_id: from }],
                  messages: [
                    {
                      from,
                      id: `wamid.${next()}`,
                      timestamp: String(nowSeconds()),
                      type: 'text',
                      text: { body: 'hi' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      return { body, headers: whatsAppHeaders(SECRETS.whatsapp, body) };
    },
  },
  telegram: {
    type: 'telegram',
    secrets: { 'secret-token': SECRETS.telegram, 'bot-token': '7000001:bench' },
    request: async () => {
      const chat = Number(next().slice(-9));
      const body = JSON.stringify({
        update_id: Number(next().slice(-9)),
        message: {
          message_id: Number(next().slice(-9)),
          from: { id: chat, is_bot: false, first_name: 'Ada' },
          chat: { id: chat, type: 'private' },
          date: nowSeconds(),
          text: 'hi',
        },
      });
      return { body, headers: telegramHeaders(SECRETS.telegram) };
    },
  },
  discord: {
    type: 'discord',
    settings: { applicationId: '775799577604522054', publicKey: discord.publicKeyHex },
    secrets: { 'bot-token': 'MTA-bench' },
    request: async () => {
      const body = JSON.stringify({
        type: 2,
        id: next(),
        application_id: '775799577604522054',
        token: `tok${next()}`,
        channel_id: '645027906669510667',
        user: { id: next(), username: 'ada' },
        data: { id: '1', name: 'ask', type: 1, options: [{ name: 'question', type: 3, value: 'hi' }] },
      });
      return { body, headers: discord.headers(body, String(nowSeconds())) };
    },
  },
};

export type WebhookBench = Awaited<ReturnType<typeof measureWebhooks>>;

export async function measureWebhooks(h: Harness) {
  await seedCatalog();
  await invoke({ method: 'GET', path: '/api/health' });
  const { agentId } = await agentWidget(h);
  const server = createServer(createApiListener({ routes }));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  useLocalChannelEndpoints(base);
  const rows: Record<string, { firstMs: number; p50Ms: number; p99Ms: number; maxMs: number; n: number }> = {};
  const coldRequests: Record<string, () => Promise<ColdWebhookRequest>> = {};
  let cold: Awaited<ReturnType<typeof measureColdWebhooks>> | null = null;
  try {
    for (const [name, p] of Object.entries(PLATFORMS)) {
      const created = await invoke({
        method: 'POST',
        path: '/api/ai/channels',
        token: h.ownerToken,
        body: { type: p.type, name, agentId, ...(p.settings ? { settings: p.settings } : {}), secrets: p.secrets },
      });
      if (created.status !== 201) throw new Error(`${name}: ${created.status} ${JSON.stringify(created.json)}`);
      const path = `/api/webhooks/${p.type}/${created.json.result.id}`;
      const url = `${base}${path}`;
      coldRequests[name] = async () => ({ path, ...(await p.request()) });
      const once = async () => {
        const { body, headers } = await p.request();
        const t0 = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...headers },
        });
        await res.arrayBuffer();
        const ms = performance.now() - t0;
        if (res.status !== 200) throw new Error(`${name}: webhook answered ${res.status}`);
        return ms;
      };
      const firstMs = await once();
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) times.push(await once());
      rows[name] = {
        firstMs: round(firstMs),
        p50Ms: round(median(times)),
        p99Ms: round(percentile(times, 99)),
        maxMs: round(Math.max(...times)),
        n: times.length,
      };
    }
    if (COLD_RUNS > 0) cold = await measureColdWebhooks(coldRequests, base, COLD_RUNS);
  } finally {
    await new Promise((done) => server.close(done));
  }
  return { iterations: ITERATIONS, deadlinesMs: { slack: 3000, discord: 3000, teams: 5000 }, platforms: rows, cold };
}
