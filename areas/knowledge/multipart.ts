import { payloadTooLarge, unsupportedMediaType, validationError } from '#shared/http/errors.ts';

export interface UploadedFile {
  fileName: string;
  declaredType: string;
  data: Buffer;
  /** Other form fields (a `title`). */
  fields: Record<string, string>;
}

/**
 * The part named `file` of a multipart body, through busboy (loaded on first use), as the content
 * area's media upload reads it; unlike media an empty file is accepted, so it ends Failed with its
 * reason in the document list instead of vanishing at the door.
 */
export async function filePart(contentType: string | undefined, body: Buffer, maxBytes: number): Promise<UploadedFile> {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data'))
    throw unsupportedMediaType('multipart/form-data or application/json');
  const { default: busboy } = await import('busboy');
  return new Promise<UploadedFile>((resolve, reject) => {
    let parser: ReturnType<typeof busboy>;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { files: 1, fileSize: maxBytes, fields: 10, parts: 15, fieldSize: 4096 },
      });
    } catch {
      reject(validationError([{ path: 'body', message: 'Not a multipart/form-data body with a boundary' }]));
      return;
    }
    let found: Omit<UploadedFile, 'fields'> | undefined;
    const fields: Record<string, string> = {};
    let tooLarge = false;
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => (tooLarge = true));
      stream.on(
        'close',
        () => (found = { fileName: info.filename || 'file', declaredType: info.mimeType, data: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', () => reject(validationError([{ path: 'body', message: 'Malformed multipart body' }])));
    parser.on('close', () => {
      if (tooLarge) reject(payloadTooLarge(maxBytes));
      else if (!found)
        reject(validationError([{ path: 'body.file', message: 'A file part named "file" is required' }]));
      else resolve({ ...found, fields });
    });
    parser.end(body);
  });
}
