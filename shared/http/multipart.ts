import { payloadTooLarge, unsupportedMediaType, validationError } from './errors.ts';

export interface FilePart {
  fileName: string;
  declaredType: string;
  data: Buffer;
  /** The form's other fields, by name (the last of a repeated one). */
  fields: Record<string, string>;
}

export interface FilePartRules {
  /** The form field that carries the file. */
  field: string;
  /** What a body that is not multipart is told to be instead, in its 415. */
  accepts: string;
  /** Larger files are refused with 413 naming this many bytes, or saying `tooLargeMessage`. */
  maxFileBytes: number;
  tooLargeMessage?: string;
  /** File parts read; any after these are skipped, so a file named `field` among them goes missing. */
  maxFiles: number;
  /** Non-file fields read, and all parts read; busboy skips the rest. */
  maxFields: number;
  maxParts: number;
  /** Longer field values are cut (busboy's default is 1 MiB). */
  maxFieldBytes?: number;
  /** Whether a file of no bytes counts as the file. */
  allowEmpty: boolean;
}

/**
 * The file part of a multipart/form-data body, through busboy, which loads on first use: only the
 * upload routes need it, and a cold start would parse it in every function that carries one.
 */
export async function readFilePart(contentType: string | undefined, body: Buffer, rules: FilePartRules) {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) throw unsupportedMediaType(rules.accepts);
  const { default: busboy } = await import('busboy');
  return new Promise<FilePart>((resolve, reject) => {
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: {
          files: rules.maxFiles,
          fileSize: rules.maxFileBytes,
          fields: rules.maxFields,
          parts: rules.maxParts,
          fieldSize: rules.maxFieldBytes,
        },
      });
    } catch {
      reject(validationError([{ path: 'body', message: 'Not a multipart/form-data body with a boundary' }]));
      return;
    }
    let found: Omit<FilePart, 'fields'> | undefined;
    const fields: Record<string, string> = {};
    let tooLarge = false;
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream, info) => {
      if (name !== rules.field) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (tooLarge = true));
      // A body cut short fails the parser (answered below) and then this stream with the same error,
      // which, unheard, would be thrown and end the process.
      stream.on('error', () => undefined);
      stream.on(
        'close',
        () => (found = { fileName: info.filename || 'file', declaredType: info.mimeType, data: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', () => reject(validationError([{ path: 'body', message: 'Malformed multipart body' }])));
    parser.on('close', () => {
      if (tooLarge) reject(payloadTooLarge(rules.maxFileBytes, rules.tooLargeMessage));
      else if (!found || (!rules.allowEmpty && !found.data.length)) {
        const what = rules.allowEmpty ? 'A file part' : 'A non-empty file part';
        reject(
          validationError([{ path: `body.${rules.field}`, message: `${what} named "${rules.field}" is required` }]),
        );
      } else resolve({ ...found, fields });
    });
    parser.end(body);
  });
}
