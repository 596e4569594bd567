import { connect } from 'node:net';
import type { Client, ClientConfig } from 'pg';

/** What the model is given back at most: the rows' JSON, kept up to this size. */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** What is read off the wire for one statement at most; past it the statement is cut off. */
const MAX_WIRE_BYTES = 2 * MAX_RESULT_BYTES;

export type Mode = 'query' | 'execute';

export class TimedOut extends Error {}
export class TooLarge extends Error {}

type Stream = NodeJS.ReadWriteStream & { destroy(): void };
type Wire = { connection: { stream: Stream } };
type Portal = {
  handlePortalSuspended(connection: { sync(): void }): void;
  handleError(err: Error, connection: { sync(): void }): void;
};

/**
 * A session for one tool call. Its limits are startup options of the session, not statements
 * the tool's SQL could undo or commit past: a read-only tool's session defaults every transaction
 * to read only, and statement_timeout bounds each statement on the server.
 */
export async function openSession(config: ClientConfig, mode: Mode, ms: number) {
  const { default: pg } = await import('pg');
  const options = [`-c statement_timeout=${Math.floor(ms)}`];
  if (mode === 'query') options.push('-c default_transaction_read_only=on');
  const client = new pg.Client({ ...config, options: options.join(' '), connectionTimeoutMillis: ms });
  // A connection this module cuts (or the server drops) is reported through the running query.
  client.on('error', () => {});
  await client.connect();
  return { client, Query: pg.Query };
}

/**
 * Asks the server to stop the session's running statement (PostgreSQL's CancelRequest, on a
 * connection of its own), so a statement the tool gave up on does not keep running there.
 */
export function cancelBackend(client: Client) {
  const { processID, secretKey, host, port } = client as unknown as {
    processID: number | null;
    secretKey: number | null;
    host: string;
    port: number;
  };
  if (!processID) return Promise.resolve();
  const message = Buffer.alloc(16);
  message.writeInt32BE(16, 0);
  message.writeInt32BE(80877102, 4);
  message.writeInt32BE(processID, 8);
  message.writeInt32BE(secretKey ?? 0, 12);
  return new Promise<void>((resolve) => {
    const socket = connect({ host, port }, () => socket.end(message));
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, 1000);
    socket.on('close', done).on('error', done);
  });
}

/**
 * Runs one statement through the extended protocol (a second statement is refused by the server),
 * fetching at most `maxRows + 1` rows from its portal, keeping rows up to MAX_RESULT_BYTES of JSON
 * and reading at most MAX_WIRE_BYTES. Past the deadline or the wire bound the statement is
 * cancelled on the server and the connection dropped.
 */
export function runStatement(
  session: Awaited<ReturnType<typeof openSession>>,
  sql: string,
  values: unknown[],
  maxRows: number | null,
  deadline: number,
) {
  const { client, Query } = session;
  const stream = (client as unknown as Wire).connection.stream;
  // A write's row count arrives only when its statement completes: it runs without a row limit.
  const rowLimit = maxRows === null ? {} : { rows: maxRows + 1 };
  // queryMode is missing from pg's published types; 'extended' makes a second statement an error.
  const config = { text: sql, values, ...rowLimit, queryMode: 'extended' };
  const query = new Query(config);
  // A suspended portal means more rows exist: stop there instead of fetching the next batch.
  let more = false;
  const portal = query as unknown as Portal;
  portal.handlePortalSuspended = (connection) => {
    more = true;
    connection.sync();
  };
  // With a row limit pg defers the Sync, and after an error the server waits for one before it answers again.
  if (maxRows !== null) {
    const handleError = portal.handleError.bind(query);
    portal.handleError = (err, connection) => {
      connection.sync();
      handleError(err, connection);
    };
  }
  const rows: unknown[] = [];
  let kept = 2;
  let truncated = false;
  query.on('row', (row: unknown) => {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1;
    if (rows.length >= (maxRows ?? 0) || kept + size > MAX_RESULT_BYTES) truncated = true;
    else {
      rows.push(row);
      kept += size;
    }
  });
  return new Promise<{ rows: unknown[]; truncated: boolean; rowCount: number; open: boolean }>((resolve, reject) => {
    let read = 0;
    let open = true;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err: Error | null, rowCount = 0) => {
      clearTimeout(timer);
      stream.removeListener('data', count);
      if (err) reject(err);
      else resolve({ rows, truncated: truncated || more, rowCount, open });
    };
    const cut = (err: Error) => {
      open = false;
      // Rows kept before the wire bound are a truncated result; a first row past it is an error.
      if (err instanceof TooLarge && rows.length) {
        truncated = true;
        finish(null);
      } else finish(err);
      void cancelBackend(client).finally(() => stream.destroy());
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > MAX_WIRE_BYTES) cut(new TooLarge(`The result is larger than ${MAX_RESULT_BYTES} bytes`));
    };
    stream.on('data', count);
    timer = setTimeout(() => cut(new TimedOut('timed out')), Math.max(0, deadline - Date.now()));
    query.on('error', (err: Error) => finish(err));
    query.on('end', (result: { rowCount: number | null }) => finish(null, result?.rowCount ?? 0));
    client.query(query);
  });
}

/**
 * A server busy past the timeout may not answer the goodbye either: the turn waits for it at most a
 * second, then drops the socket (the server rolls back what the dropped session left open).
 */
export async function closeSession(client: Client) {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    client.end().then(
      () => true,
      () => true,
    ),
    new Promise<false>((r) => {
      timer = setTimeout(() => r(false), 1000);
    }),
  ]);
  clearTimeout(timer);
  if (!ended) (client as unknown as Partial<Wire>).connection?.stream?.destroy();
}
