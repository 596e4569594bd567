/**
 * Credentials an area defines (the LLM gateway's keys, the widget's sessions). The runtime resolves
 * them for the routes whose auth rule names them, with resolvers the function serving those routes
 * injects (`apiHandler`'s `credentials`), so the runtime imports no area.
 */

/** A gateway key found by its secret: whose it is. Its state (revoked, limits) is the gateway's to read. */
export interface GatewayKeyRef {
  tenantId: string;
  keyId: string;
}

/** A widget session a request names; the handler checks its secret against the conversation. */
export interface WidgetSessionRef {
  tenantId: string;
  conversationId: string;
  secret: string;
}

type HeaderReader = (name: string) => string | undefined;

export interface CredentialResolvers {
  /** `gatewayKey` routes: a key's secret in the Authorization header; without one, a user's token. */
  gatewayKey: {
    /** The key secret the header carries, or undefined when it carries none. */
    secretOf(authorization: string | undefined): string | undefined;
    /** The key a secret names, or null when it names none (401 INVALID_API_KEY). */
    find(secret: string): Promise<GatewayKeyRef | null>;
  };
  /** `widgetSession` routes: the session the request names, or null when it names none (401). */
  widgetSession: { read(header: HeaderReader): WidgetSessionRef | null };
}

export type CredentialKind = keyof CredentialResolvers;
