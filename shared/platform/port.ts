/**
 * A port: the seam between domain code and a service that has a stand-in (an AWS service, an outside
 * provider). Calling it gives the stand-in installed, else the deployed adapter, made on first use, so
 * a function that never sends e-mail never loads an SES client. The local server and the tests put
 * their stand-ins in place with `install` before serving: the one way the code swaps a service.
 * (AWS services whose stand-in is a server, DynamoDB Local and the S3 stand-in, keep the real client:
 * the SDK's own `AWS_ENDPOINT_URL_<SERVICE>` setting points it there.)
 */
export interface Port<T, Get = T> {
  (): Get;
  /** Puts a stand-in in place; undefined brings back the deployed adapter (made anew on next use). */
  install(standIn: T | undefined): void;
}

/** A port whose adapter is made synchronously (the DynamoDB and S3 clients every request uses). */
export function definePort<T>(make: () => T): Port<T> {
  let current: T | undefined;
  const get = () => {
    current ??= make();
    return current;
  };
  return Object.assign(get, {
    install: (standIn: T | undefined) => {
      current = standIn;
    },
  });
}

/** A port whose adapter loads on first use (an SDK kept beside the bundle, lib/bundling.ts); a failed load is retried. */
export function defineLoadedPort<T>(load: () => Promise<T>): Port<T, Promise<T>> {
  let current: Promise<T> | undefined;
  const get = () => {
    if (!current) {
      current = load();
      current.catch(() => (current = undefined));
    }
    return current;
  };
  return Object.assign(get, {
    install: (standIn: T | undefined) => {
      current = standIn === undefined ? undefined : Promise.resolve(standIn);
    },
  });
}
