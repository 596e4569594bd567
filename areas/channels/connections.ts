import type { Principal } from '#shared/auth/access-token.ts';
import { bumpCounter, listNewestFirst } from '#shared/data/collection.ts';
import { commitChange, deleteItem, orConflict, putNew, updateItem, type Change } from '#shared/data/commit.ts';
import { keys } from '#shared/data/keys.ts';
import { ask } from '#shared/data/queries.ts';
import { get } from '#shared/data/read.ts';
import { notFound, validationError } from '#shared/http/errors.ts';
import { toPage } from '#shared/http/responses.ts';
import { config } from '#shared/platform/config.ts';
import { requireAgents } from '#areas/identity/for-channels.ts';
import { deleteTenantSecret, describeTenantSecret, putTenantSecret } from '#areas/vault/for-channels.ts';
import type { ChannelType } from './channel-types.ts';
import { CHANNEL_CREDENTIALS, channelSecretName, TEAMS_MODES } from './credentials.ts';
import { LIVE_AGENT } from './queries.ts';
import { channelKey, channelList, channelLookup } from './records.ts';

/**
 * Channel connections (records.ts): credentials are tenant secrets named by credentials.ts; the
 * record keeps only their references. The connection serves one of the tenant's agents.
 */

/** Optional settings beyond each type's required ones (the Teams sender's overrides, how Teams reaches us). */
const OPTIONAL_SETTINGS: Partial<Record<ChannelType, readonly string[]>> = {
  teams: ['serviceUrl', 'azureTenantId', 'mode'],
};
/** Settings that take one of a few values. */
const SETTING_VALUES: Partial<Record<ChannelType, Record<string, readonly string[]>>> = {
  teams: { mode: TEAMS_MODES },
};

export interface ChannelRecord {
  id: string;
  tenantId: string;
  type: ChannelType;
  name: string;
  agentId: string;
  settings: Record<string, string>;
  secretRefs: Record<string, string>;
  /** Tokens per UTC day each person on the platform may spend (null: no cap); absent on older connections. */
  limits?: ChannelLimits;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ChannelLimits {
  userDailyTokens: number | null;
}
const NO_LIMITS: ChannelLimits = { userDailyTokens: null };

const credentialsOf = (type: ChannelType): string[] => [
  ...CHANNEL_CREDENTIALS[type].inbound,
  ...CHANNEL_CREDENTIALS[type].sending,
];

const webhookUrl = (type: ChannelType, id: string) => `${config.publicBaseUrl}/api/webhooks/${type}/${id}`;

const toChannel = (c: ChannelRecord) => ({
  id: c.id,
  type: c.type,
  name: c.name,
  agentId: c.agentId,
  settings: c.settings,
  /** Whether each of the type's credentials is set; never a value. */
  secrets: Object.fromEntries(
    credentialsOf(c.type).map((k) => [k, describeTenantSecret(c.tenantId, c.secretRefs[k]).set]),
  ),
  limits: c.limits ?? NO_LIMITS,
  isActive: c.isActive,
  webhookUrl: webhookUrl(c.type, c.id),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

const change = (tenantId: string, actor: Principal, entityId: string, action: string, changes: Change['changes']) =>
  ({ tenantId, actor, entityType: 'ChannelConnection', entityId, action, changes }) satisfies Change;

function checkSettings(type: ChannelType, settings: Record<string, string>) {
  const allowed = new Set<string>([...CHANNEL_CREDENTIALS[type].settings, ...(OPTIONAL_SETTINGS[type] ?? [])]);
  const unknown = Object.keys(settings).filter((k) => !allowed.has(k));
  if (unknown.length)
    throw validationError(unknown.map((k) => ({ path: `body.settings.${k}`, message: `Not a ${type} setting` })));
  const values = SETTING_VALUES[type] ?? {};
  const wrong = Object.entries(values).filter(([k, allowed]) => k in settings && !allowed.includes(settings[k]!));
  if (wrong.length)
    throw validationError(
      wrong.map(([k, allowed]) => ({ path: `body.settings.${k}`, message: `One of ${allowed.join(', ')}` })),
    );
}

function checkSecretNames(type: ChannelType, secrets: Record<string, string>) {
  const allowed = new Set(credentialsOf(type));
  const unknown = Object.keys(secrets).filter((k) => !allowed.has(k));
  if (unknown.length)
    throw validationError(
      unknown.map((k) => ({
        path: `body.secrets.${k}`,
        message: `Not a ${type} credential (${[...allowed].join(', ')})`,
      })),
    );
}

/** Values go to the vault's store first (it is not part of the table's transaction); references come back. */
async function storeSecrets(tenantId: string, channelId: string, secrets: Record<string, string>) {
  const refs: Record<string, string> = {};
  for (const [k, v] of Object.entries(secrets))
    refs[k] = (await putTenantSecret(tenantId, channelSecretName(channelId, k), v, `body.secrets.${k}`)).reference;
  return refs;
}
const dropSecrets = (tenantId: string, refs: Record<string, string>) =>
  Promise.allSettled(Object.values(refs).map((r) => deleteTenantSecret(tenantId, r)));

async function requireLiveAgent(tenantId: string, agentId: string) {
  if (!(await ask(LIVE_AGENT, tenantId, agentId)))
    throw validationError([{ path: 'body.agentId', message: "Not one of the tenant's agents" }]);
}

const readChannel = async (tenantId: string, id: string) => {
  const c = await get<ChannelRecord>(channelKey(tenantId, id), { consistent: true });
  if (!c) throw notFound('Channel connection');
  return c;
};

export async function listChannels(tenantId: string, q: { page: number; pageSize: number; type?: string }) {
  const { items, totalCount } = await listNewestFirst<ChannelRecord>(channelList(tenantId), {
    ...q,
    where: q.type ? { type: q.type } : undefined,
  });
  return toPage(items.map(toChannel), totalCount, q.page, q.pageSize);
}

export async function createChannel(
  tenantId: string,
  input: {
    type: ChannelType;
    name: string;
    agentId: string;
    settings?: Record<string, string>;
    secrets?: Record<string, string>;
    limits?: Partial<ChannelLimits> | null;
  },
  actor: Principal,
) {
  await requireAgents(tenantId);
  const settings = input.settings ?? {};
  const secrets = input.secrets ?? {};
  checkSettings(input.type, settings);
  checkSecretNames(input.type, secrets);
  await requireLiveAgent(tenantId, input.agentId);
  const now = new Date().toISOString();
  const id = crypto.randomUUID();
  const secretRefs = await storeSecrets(tenantId, id, secrets);
  const c: ChannelRecord = {
    id,
    tenantId,
    type: input.type,
    name: input.name,
    agentId: input.agentId,
    settings,
    secretRefs,
    limits: { ...NO_LIMITS, ...(input.limits ?? {}) },
    isActive: true,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await commitChange(
      [
        putNew({ ...channelKey(tenantId, id), ...keys.newestFirst(channelList(tenantId), now, id), ...c }),
        putNew({ ...channelLookup(id), tenantId, channelId: id }),
        bumpCounter(channelList(tenantId), 1),
      ],
      change(tenantId, actor, id, 'create', {
        type: c.type,
        name: c.name,
        agentId: c.agentId,
        secretsSet: Object.keys(secretRefs).join(' '),
      }),
      { now },
    );
  } catch (err) {
    await dropSecrets(tenantId, secretRefs);
    throw err;
  }
  return toChannel(c);
}

export async function updateChannel(
  tenantId: string,
  id: string,
  input: {
    name?: string;
    agentId?: string;
    settings?: Record<string, string>;
    isActive?: boolean;
    secrets?: Record<string, string>;
    limits?: Partial<ChannelLimits> | null;
  },
  actor: Principal,
) {
  await requireAgents(tenantId);
  const c = await readChannel(tenantId, id);
  if (input.settings) checkSettings(c.type, input.settings);
  if (input.secrets) checkSecretNames(c.type, input.secrets);
  if (input.agentId && input.agentId !== c.agentId) await requireLiveAgent(tenantId, input.agentId);
  // Each credential keeps its name, so a new value replaces the old one in the store.
  const newRefs = input.secrets ? await storeSecrets(tenantId, id, input.secrets) : {};
  const next: ChannelRecord = {
    ...c,
    name: input.name ?? c.name,
    agentId: input.agentId ?? c.agentId,
    settings: input.settings ?? c.settings,
    isActive: input.isActive ?? c.isActive,
    limits: input.limits ? { ...NO_LIMITS, ...c.limits, ...input.limits } : (c.limits ?? NO_LIMITS),
    secretRefs: { ...c.secretRefs, ...newRefs },
    updatedAt: new Date().toISOString(),
  };
  await commitChange(
    [
      orConflict(
        updateItem(
          channelKey(tenantId, id),
          {
            name: next.name,
            agentId: next.agentId,
            settings: next.settings,
            isActive: next.isActive,
            limits: next.limits,
            secretRefs: next.secretRefs,
            updatedAt: next.updatedAt,
          },
          { condition: 'attribute_exists(pk)' },
        ),
        notFound('Channel connection'),
      ),
    ],
    change(tenantId, actor, id, 'update', {
      name: next.name,
      agentId: next.agentId,
      isActive: next.isActive,
      limits: next.limits,
      secretsSet: Object.keys(newRefs).join(' '),
    }),
    { now: next.updatedAt },
  );
  return toChannel(next);
}

/** The connection goes with its lookup in one transaction (its webhook answers 404 at once); then its secrets. */
export async function deleteChannel(tenantId: string, id: string, actor: Principal) {
  const c = await readChannel(tenantId, id);
  await commitChange(
    [
      orConflict(deleteItem(channelKey(tenantId, id), 'attribute_exists(pk)'), notFound('Channel connection')),
      deleteItem(channelLookup(id)),
      bumpCounter(channelList(tenantId), -1),
    ],
    change(tenantId, actor, id, 'delete', { type: c.type, name: c.name }),
  );
  await dropSecrets(tenantId, c.secretRefs);
}
