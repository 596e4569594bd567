import { fetchPage, type FetchRules } from './fetch-page.ts';
import { hostPaceMs, MAX_CRAWL_DELAY_MS, ROBOTS_AGENT, ROBOTS_MAX_BYTES } from './source-vocabulary.ts';

/**
 * robots.txt per host, read once a sync (robots-parser, loaded on first use), and the pace each host
 * is asked at: the platform's own, or the file's Crawl-delay when longer (up to 10 s). As RFC 9309
 * says: a file that is absent (4xx) allows everything; one that cannot be read (5xx, a network
 * error) forbids the host for this sync.
 */
type RobotsParser = (
  url: string,
  text: string,
) => { isAllowed(url: string, ua?: string): boolean | undefined; getCrawlDelay(ua?: string): number | undefined };

interface HostRules {
  allowed: (url: string) => boolean;
  delayMs: number;
}

export class Crawler {
  private hosts = new Map<string, Promise<HostRules>>();
  private nextAt = new Map<string, number>();
  private delays = new Map<string, number>();

  /** Waits for the host's turn, then books the next one. */
  readonly pace = async (host: string) => {
    const delay = Math.max(hostPaceMs(), this.delays.get(host) ?? 0);
    const at = this.nextAt.get(host) ?? 0;
    const now = Date.now();
    this.nextAt.set(host, Math.max(now, at) + delay);
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  };

  /** Why robots.txt forbids the URL, or null. */
  readonly refuse = async (url: URL): Promise<string | null> => {
    let rules = this.hosts.get(url.host);
    if (!rules) {
      rules = this.read(url).then((r) => {
        this.delays.set(url.host, r.delayMs);
        return r;
      });
      this.hosts.set(url.host, rules);
    }
    return (await rules).allowed(url.toString()) ? null : `robots.txt does not allow ${url.pathname}`;
  };

  private async read(url: URL): Promise<HostRules> {
    const robotsUrl = new URL('/robots.txt', url.origin).toString();
    const rules: FetchRules = { maxBytes: ROBOTS_MAX_BYTES, accept: 'text/plain', pace: this.pace };
    const got = await fetchPage(robotsUrl, rules);
    if (got.kind === 'gone' || (got.kind === 'failed' && /^HTTP 4\d\d$/.test(got.reason)))
      return { allowed: () => true, delayMs: 0 };
    if (got.kind !== 'page') return { allowed: () => false, delayMs: 0 };
    // The package is CommonJS: its function is the module's default export.
    const robotsParser = ((await import('robots-parser')) as unknown as { default: RobotsParser }).default;
    const robots = robotsParser(robotsUrl, got.bytes.toString('utf8'));
    const delay = Number(robots.getCrawlDelay(ROBOTS_AGENT) ?? 0) * 1000;
    return {
      allowed: (u) => robots.isAllowed(u, ROBOTS_AGENT) !== false,
      delayMs: Number.isFinite(delay) ? Math.min(MAX_CRAWL_DELAY_MS, Math.max(0, delay)) : 0,
    };
  }
}
