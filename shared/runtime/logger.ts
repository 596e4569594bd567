/**
 * Structured JSON logs, one line per entry, in the shape Powertools Logger writes (level, message,
 * timestamp, service, xray_trace_id, then the appended and the entry's own keys; an Error value as
 * name, message and stack). Hand-written because Powertools Logger cost 11 ms of every cold start
 * (import and construction, measured by `npm run bench:cold`) for what is this one writer; see
 * docs/bench.md, "Cold init".
 */
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const RANK: Record<Level | 'SILENT', number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 99 };

const serialize = (value: unknown): unknown =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

class JsonLogger {
  private readonly keys: Record<string, unknown> = {};
  private readonly threshold: number;

  constructor(
    private readonly service: string,
    level: string,
    private readonly write: (line: string) => void = (line) => void process.stdout.write(line),
  ) {
    this.threshold = RANK[level.toUpperCase() as Level | 'SILENT'] ?? RANK.INFO;
  }

  appendKeys(keys: Record<string, unknown>) {
    Object.assign(this.keys, keys);
  }

  removeKeys(names: readonly string[]) {
    for (const name of names) delete this.keys[name];
  }

  debug(message: string, extra?: Record<string, unknown>) {
    this.log('DEBUG', message, extra);
  }

  info(message: string, extra?: Record<string, unknown>) {
    this.log('INFO', message, extra);
  }

  warn(message: string, extra?: Record<string, unknown>) {
    this.log('WARN', message, extra);
  }

  error(message: string, extra?: Record<string, unknown>) {
    this.log('ERROR', message, extra);
  }

  private log(level: Level, message: string, extra: Record<string, unknown> = {}) {
    if (RANK[level] < this.threshold) return;
    const trace = process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];
    const entry: Record<string, unknown> = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.service,
      ...(trace ? { xray_trace_id: trace } : {}),
      ...this.keys,
    };
    for (const [key, value] of Object.entries(extra)) entry[key] = serialize(value);
    this.write(`${JSON.stringify(entry)}\n`);
  }
}

/** The process's logger; each request appends its request id (access-log middleware). */
export const logger = new JsonLogger(process.env.APP_NAME ?? 'saas', process.env.LOG_LEVEL ?? 'INFO');
