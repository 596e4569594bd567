import type { ChannelType } from '../channel-types.ts';
import { parseDiscord } from './discord.ts';
import type { InboundEvent } from './event.ts';
import { parseSlack } from './slack.ts';
import { parseTeams } from './teams.ts';
import { parseTelegram } from './telegram.ts';
import { parseWhatsApp } from './whatsapp.ts';

export type { InboundEvent } from './event.ts';
export { whatsAppSubscription } from './whatsapp.ts';
export { DISCORD_DEFERRED, DISCORD_PONG } from './discord.ts';

/** The events a verified body carries (WhatsApp may batch several), or null when it is not a JSON object. */
export function parseInbound(type: ChannelType, rawBody: string): InboundEvent[] | null {
  if (type === 'whatsapp') return parseWhatsApp(rawBody);
  const one = { slack: parseSlack, teams: parseTeams, telegram: parseTelegram, discord: parseDiscord }[type](rawBody);
  return one ? [one] : null;
}
