/**
 * One WebAssembly function, `scores(q, data, count, strideBytes, out)`: for each of `count` vectors
 * laid out every `strideBytes` from `data`, writes its dot product with `q` as a float32 at
 * `out + 4 * i`. Vectors are padded to a multiple of 4 floats, so the loop is all 128-bit SIMD:
 * four multiply-adds an instruction, where JavaScript does one. Written out as bytes here (about 150)
 * rather than built from a text format, which would bring a toolchain for one loop.
 */
const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32: (value: number) => [0x41, value],
  i32Add: [0x6a],
  i32Shl: [0x74],
  i32LtU: [0x49],
  i32GeU: [0x4f],
  f32Add: [0x92],
  f32Store: [0x38, 0x02, 0x00],
  v128Load: [0xfd, 0x00, 0x02, 0x00],
  v128Zero: [0xfd, 0x0c, ...new Array(16).fill(0)],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
  lane: (n: number) => [0xfd, 0x1f, n],
};

// Parameters 0-4: q, data, count, strideBytes, out. Locals: 5 = vector index, 6 = byte offset, 7 = sums.
const [Q, DATA, COUNT, STRIDE, OUT, V, I, SUM] = [0, 1, 2, 3, 4, 5, 6, 7];
const body = [
  ...[2, 2, I32, 1, V128],
  ...op.block,
  ...op.loop,
  ...[...op.get(V), ...op.get(COUNT), ...op.i32GeU, ...op.brIf(1)],
  ...[...op.v128Zero, ...op.set(SUM), ...op.i32(0), ...op.set(I)],
  ...op.loop,
  ...[...op.get(SUM), ...op.get(Q), ...op.get(I), ...op.i32Add, ...op.v128Load],
  ...[...op.get(DATA), ...op.get(I), ...op.i32Add, ...op.v128Load, ...op.f32x4Mul, ...op.f32x4Add, ...op.set(SUM)],
  ...[...op.get(I), ...op.i32(16), ...op.i32Add, ...op.tee(I), ...op.get(STRIDE), ...op.i32LtU, ...op.brIf(0)],
  ...op.end,
  ...[...op.get(OUT), ...op.get(V), ...op.i32(2), ...op.i32Shl, ...op.i32Add],
  ...[...op.get(SUM), ...op.lane(0), ...op.get(SUM), ...op.lane(1), ...op.f32Add],
  ...[...op.get(SUM), ...op.lane(2), ...op.f32Add, ...op.get(SUM), ...op.lane(3), ...op.f32Add, ...op.f32Store],
  ...[...op.get(DATA), ...op.get(STRIDE), ...op.i32Add, ...op.set(DATA)],
  ...[...op.get(V), ...op.i32(1), ...op.i32Add, ...op.set(V), ...op.br(0)],
  ...op.end,
  ...op.end,
  ...op.end,
];

const name = (text: string) => [text.length, ...Buffer.from(text)];
const section = (id: number, content: number[]) => [id, ...uleb(content.length), ...content];
function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

const bytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('scores'), 0x00, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

export type Scores = (q: number, data: number, count: number, strideBytes: number, out: number) => void;
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
// The project's type libraries (Node's, without the DOM's) do not describe WebAssembly's classes.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: {
    Memory: new (d: { initial: number }) => WasmMemory;
    Module: new (bytes: Uint8Array) => object;
    Instance: new (m: object, imports: object) => { exports: { scores: Scores } };
  };
};
let compiled: object | undefined;

/** A memory the kernel can work in, and the kernel bound to it. */
export function dotKernel(): { memory: WasmMemory; scores: Scores } {
  compiled ??= new wasm.Module(bytes);
  const memory = new wasm.Memory({ initial: 1 });
  return { memory, scores: new wasm.Instance(compiled, { env: { memory } }).exports.scores };
}
