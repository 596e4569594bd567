import { Worker } from 'node:worker_threads';

/**
 * PDF and DOCX are read in a worker thread of their own, with a heap limit and a time limit: a file
 * built to exhaust its parser (millions of empty paragraphs, thousands of pages) ends that thread,
 * not the function, whose other documents and requests keep running. The thread is a CommonJS
 * script (a worker's eval source); it loads the parser by name, resolved from the working directory
 * as every lazy package is beside a deployed bundle (lib/bundling.ts), and the project root locally.
 */
export const THREAD_LIMITS = {
  heapMb: 384,
  timeoutMs: 120_000,
  /** Pages of a PDF read at most: a 10 MB file of more is built to stall the reader, not to be searched. */
  pdfPages: 1_000,
};
export type ThreadLimits = typeof THREAD_LIMITS;

export type ThreadOutcome =
  | { text: string }
  | { refused: 'damaged' | 'memory' | 'time' }
  | { refused: 'pages'; pages: number };
type ThreadMessage = ThreadOutcome | { unavailable: string };

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { kind, bytes, pdfPages } = workerData;
const unavailable = (name) => (err) => {
  parentPort.postMessage({ unavailable: name + ': ' + String(err && err.message) });
  return new Promise(() => {});
};
async function read() {
  if (kind === 'pdf') {
    const { getDocumentProxy, extractText } = await import("unpdf").catch(unavailable('unpdf'));
    const pdf = await getDocumentProxy(bytes);
    if (pdf.numPages > pdfPages) return { refused: 'pages', pages: pdf.numPages };
    const { text } = await extractText(pdf, { mergePages: false });
    return { text: text.join('\\n\\n') };
  }
  const { default: mammoth } = await import("mammoth").catch(unavailable('mammoth'));
  const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) });
  return { text: value };
}
read().then(
  (out) => parentPort.postMessage(out),
  () => parentPort.postMessage({ refused: 'damaged' }),
);
`;

/** The text of a PDF or DOCX, read in a thread that a runaway file cannot take the function down with. */
export function readInThread(kind: 'pdf' | 'docx', bytes: Uint8Array, limits = THREAD_LIMITS): Promise<ThreadOutcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SOURCE, {
      eval: true,
      // Not the parent's flags: `--input-type=module` would make this CommonJS source a module.
      execArgv: [],
      workerData: { kind, bytes, pdfPages: limits.pdfPages },
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // What the parser prints (pdf.js warns about every odd object) is dropped, not piled up.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (out: ThreadMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      // A parser missing from the bundle is the deployment's fault, not the file's: the queue retries.
      if ('unavailable' in out) reject(new Error(`Parser unavailable in the indexing thread: ${out.unavailable}`));
      else resolve(out);
    };
    const timer = setTimeout(() => finish({ refused: 'time' }), limits.timeoutMs);
    worker.once('message', (out: ThreadMessage) => finish(out));
    worker.once('error', (err: Error & { code?: string }) =>
      finish({ refused: err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'damaged' }),
    );
    worker.once('exit', () => finish({ refused: 'damaged' }));
  });
}
