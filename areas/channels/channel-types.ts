/** The chat platforms a channel connection can be (the spec's five). */
export const CHANNEL_TYPES = ['slack', 'teams', 'whatsapp', 'telegram', 'discord'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
