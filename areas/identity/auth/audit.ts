import { commitChange, type Change } from '#shared/data/commit.ts';

/**
 * Audit entries of sign-in, logout, password reset and change: entityType `User`, the user's id
 * (or `unknown` for an address with no account), an action such as `login.failed`, and details
 * (method, reason, IP) without any secret.
 */
export interface AuthEvent {
  action: string;
  user: { id: string; email: string; tenantId: string | null } | null;
  email?: string;
  details: Record<string, unknown>;
}

/** The event as the change a commit records (with the write it belongs to). */
export function authChange(event: AuthEvent): Change {
  const email = event.user?.email ?? event.email ?? '';
  return {
    entityType: 'User',
    entityId: event.user?.id ?? 'unknown',
    action: event.action,
    changes: { ...event.details, ...(event.user ? {} : { email }) },
    actor: event.user ? { userId: event.user.id, email: event.user.email } : null,
    tenantId: event.user?.tenantId ?? null,
  };
}

/** Records an event on its own (failures and events not tied to another write). */
export const recordAuth = (event: AuthEvent) => commitChange([], authChange(event));
