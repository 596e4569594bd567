import type { Principal } from '#shared/auth/access-token.ts';
import { commitChange, putItem } from '#shared/data/commit.ts';
import { get } from '#shared/data/read.ts';
import { conversationSettingsKey, type ConversationSettings } from './records.ts';

const DEFAULTS: ConversationSettings = { escalationEmails: null, updatedAt: null };

export async function readSettings(tenantId: string, consistent = false): Promise<ConversationSettings> {
  const item = await get<ConversationSettings>(conversationSettingsKey(tenantId), { consistent });
  return { escalationEmails: item?.escalationEmails ?? null, updatedAt: item?.updatedAt ?? null };
}

export const settingsView = (s: ConversationSettings) => ({
  escalationEmails: s.escalationEmails,
  updatedAt: s.updatedAt,
});

/** Who hears of an escalation: the addresses given (lowercased, each once), or null for the staff holding the permission. */
export async function writeSettings(
  tenantId: string,
  body: { escalationEmails: string[] | null },
  actor: Principal,
): Promise<ReturnType<typeof settingsView>> {
  const before = await readSettings(tenantId, true);
  const emails =
    body.escalationEmails === null ? null : [...new Set(body.escalationEmails.map((e) => e.toLowerCase()))];
  const next: ConversationSettings = { ...DEFAULTS, escalationEmails: emails, updatedAt: new Date().toISOString() };
  await commitChange([putItem({ ...conversationSettingsKey(tenantId), tenantId, ...next })], {
    tenantId,
    actor,
    entityType: 'ConversationSettings',
    entityId: tenantId,
    action: 'ConversationSettingsUpdated',
    changes: { escalationEmails: { from: before.escalationEmails, to: emails } },
  });
  return settingsView(next);
}
