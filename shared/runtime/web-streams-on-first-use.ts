/**
 * What the bundles get for `node:stream/web` (lib/bundling.ts aliases it here): each export forwards
 * to Node's global of the same name on first use. @middy/core imports `ReadableStream` at its top
 * level for a response-streaming mode the project does not use (it only tests `instanceof` there),
 * and that import alone loads Node's web streams, about 4 ms of every cold start; with this module
 * they load when something first touches one. Constructing, calling, static members and
 * `instanceof` behave as the global's.
 */
type Global = Record<string, unknown>;

// biome-ignore lint/suspicious/noExplicitAny: a constructor of any arguments, as the globals are.
function onFirstUse<T extends object = new (...args: any[]) => any>(name: string): T {
  const real = () => (globalThis as unknown as Global)[name] as T & (new (...args: unknown[]) => object);
  return new Proxy(function stand() {} as unknown as T, {
    construct: (_t, args, newTarget) => Reflect.construct(real(), args, newTarget === _t ? real() : newTarget),
    apply: (_t, self, args) => Reflect.apply(real() as unknown as (...a: unknown[]) => unknown, self, args),
    get: (_t, key) => (key === Symbol.hasInstance ? (v: unknown) => v instanceof real() : Reflect.get(real(), key)),
    has: (_t, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}

export const ReadableStream = onFirstUse<typeof globalThis.ReadableStream>('ReadableStream');
export const WritableStream = onFirstUse<typeof globalThis.WritableStream>('WritableStream');
export const TransformStream = onFirstUse<typeof globalThis.TransformStream>('TransformStream');
export const ReadableStreamDefaultReader = onFirstUse('ReadableStreamDefaultReader');
export const ReadableStreamBYOBReader = onFirstUse('ReadableStreamBYOBReader');
export const ReadableStreamBYOBRequest = onFirstUse('ReadableStreamBYOBRequest');
export const ReadableByteStreamController = onFirstUse('ReadableByteStreamController');
export const ReadableStreamDefaultController = onFirstUse('ReadableStreamDefaultController');
export const TransformStreamDefaultController = onFirstUse('TransformStreamDefaultController');
export const WritableStreamDefaultWriter = onFirstUse('WritableStreamDefaultWriter');
export const WritableStreamDefaultController = onFirstUse('WritableStreamDefaultController');
export const ByteLengthQueuingStrategy = onFirstUse('ByteLengthQueuingStrategy');
export const CountQueuingStrategy = onFirstUse('CountQueuingStrategy');
export const TextEncoderStream = onFirstUse('TextEncoderStream');
export const TextDecoderStream = onFirstUse('TextDecoderStream');
export const CompressionStream = onFirstUse('CompressionStream');
export const DecompressionStream = onFirstUse('DecompressionStream');
