import { get } from '#shared/data/read.ts';
import type { ChannelType } from './channel-types.ts';
import type { ChannelRecord } from './connections.ts';
import { channelKey, channelLookup, withoutKeys } from './records.ts';

/** What other areas read of the connections (apart from the use cases, so their bundles take only these). */
/**
 * The connection an inbound webhook names, with its tenant: two GetItems, no Scan. Null when the
 * channel does not exist (deleted). The webhook still checks isActive and the agent's status.
 */
export async function channelById(channelId: string): Promise<{ tenantId: string; connection: ChannelRecord } | null> {
  const lookup = await get<{ tenantId: string }>(channelLookup(channelId), { consistent: true });
  if (!lookup) return null;
  const connection = await get<ChannelRecord>(channelKey(lookup.tenantId, channelId), { consistent: true });
  if (!connection) return null;
  return {
    tenantId: lookup.tenantId,
    connection: withoutKeys<ChannelRecord>(connection as ChannelRecord & Record<string, unknown>),
  };
}

/** A connection's platform, or undefined when the tenant has no such connection. */
export const channelTypeOf = async (tenantId: string, channelId: string) =>
  (await get<{ type: ChannelType }>(channelKey(tenantId, channelId), { attributes: ['type'] }))?.type;
