import type { Theme } from './api.ts';

/**
 * The conversation a visitor is in, kept in the site's localStorage under the widget's key so it
 * survives a reload or a move to another page of the same site, until it expires or is closed.
 */
export interface SavedSession {
  token: string;
  expiresAt: string;
  lastId: string | null;
  escalated: boolean;
  open: boolean;
  theme: Theme | null;
  welcome: string | null;
}

export function savedSession(widgetKey: string) {
  const name = `chat-widget:${widgetKey.slice(-12)}`;
  // Private browsing or a blocked storage: the chat still works, only for this page.
  const storage = (): Storage | null => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  };
  return {
    read(now = Date.now()): SavedSession | null {
      try {
        const raw = storage()?.getItem(name);
        const s = raw ? (JSON.parse(raw) as SavedSession) : null;
        if (!s || typeof s.token !== 'string') return null;
        if (!(Date.parse(s.expiresAt) > now)) {
          storage()?.removeItem(name);
          return null;
        }
        return s;
      } catch {
        return null;
      }
    },
    write(s: SavedSession) {
      try {
        storage()?.setItem(name, JSON.stringify(s));
      } catch {
        // Full or blocked storage: the session lives as long as the page.
      }
    },
    clear() {
      try {
        storage()?.removeItem(name);
      } catch {
        // Nothing kept, nothing to clear.
      }
    },
  };
}
