/**
 * The local server's own paths (`/_local/outbox` holds every tenant's mail, `/_local/idp` signs
 * logins): never the target of a tenant's tool or webhook, even where the local run's loopback
 * switch lets them call this machine. Read once decoded and case-blind, since the local server
 * serves them under more than one spelling.
 */
export function isLocalServerPath(pathname: string): boolean {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {}
  return /^[/\\]*_local(?:[/\\?#;]|$)/i.test(path);
}

export const LOCAL_PATH_REFUSED = "The local server's own /_local paths are not a target";
