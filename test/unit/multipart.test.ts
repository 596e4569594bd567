import { describe, expect, it } from 'vitest';
import { readFilePart, type FilePartRules } from '#shared/http/multipart.ts';

const RULES: FilePartRules = {
  field: 'file',
  accepts: 'multipart/form-data',
  maxFileBytes: 64,
  maxFiles: 1,
  maxFields: 2,
  maxParts: 4,
  maxFieldBytes: 8,
  allowEmpty: false,
};
const TYPE = 'multipart/form-data; boundary=b';
const part = (name: string, value: string, file?: { fileName: string; type: string }) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file.fileName}"\r\nContent-Type: ${file.type}` : ''}\r\n\r\n${value}\r\n`;
const form = (...parts: string[]) => Buffer.from(`${parts.join('')}--b--\r\n`);
const fileOf = (value: string, name = 'file') => part(name, value, { fileName: 'a.txt', type: 'text/plain' });

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable('the part was accepted'),
    (e: { status: number; code: string; message: string; details?: unknown }) => ({
      status: e.status,
      code: e.code,
      message: e.message,
      details: e.details,
    }),
  );
const required = (message: string) => ({
  status: 400,
  code: 'VALIDATION_ERROR',
  details: [{ path: 'body.file', message }],
});

describe('readFilePart', () => {
  it('answers the file part with the other fields, cut to the field size', async () => {
    const got = await readFilePart(TYPE, form(part('title', 'A long title'), fileOf('hello')), RULES);
    expect({ ...got, data: got.data.toString() }).toEqual({
      fileName: 'a.txt',
      declaredType: 'text/plain',
      data: 'hello',
      fields: { title: 'A long t' },
    });
  });

  it('names what the route accepts when the body is not multipart', async () => {
    const accepts = 'multipart/form-data or application/json';
    expect(await refusal(readFilePart('application/json', Buffer.from('{}'), { ...RULES, accepts }))).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `Content-Type must be ${accepts}`,
      details: undefined,
    });
    expect(await refusal(readFilePart(undefined, Buffer.alloc(0), RULES))).toMatchObject({ status: 415 });
  });

  it('refuses a file over the limit with 413 naming the limit', async () => {
    expect(await refusal(readFilePart(TYPE, form(fileOf('x'.repeat(65))), RULES))).toEqual({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'Body exceeds 64 bytes',
      details: undefined,
    });
  });

  it('takes an empty file only where the rules allow it', async () => {
    expect(await refusal(readFilePart(TYPE, form(fileOf('')), RULES))).toMatchObject(
      required('A non-empty file part named "file" is required'),
    );
    const empty = await readFilePart(TYPE, form(fileOf('')), { ...RULES, allowEmpty: true });
    expect(empty.data.length).toBe(0);
  });

  it('misses a file under another name, after the file count or after the part count', async () => {
    const missing = required('A file part named "file" is required');
    const rules = { ...RULES, allowEmpty: true };
    for (const body of [
      form(fileOf('x', 'other')),
      form(fileOf('x', 'other'), fileOf('y')),
      form(part('a', '1'), part('b', '2'), part('c', '3'), part('d', '4'), fileOf('y')),
    ])
      expect(await refusal(readFilePart(TYPE, body, rules))).toMatchObject(missing);
  });

  it('answers 400 to a body without a boundary or cut short, and the process lives on', async () => {
    const message = (m: string) => ({ status: 400, details: [{ path: 'body', message: m }] });
    expect(await refusal(readFilePart('multipart/form-data', form(fileOf('x')), RULES))).toMatchObject(
      message('Not a multipart/form-data body with a boundary'),
    );
    // Cut inside the file: busboy fails the file stream too, which must not become an uncaught error.
    const whole = form(fileOf('hello'));
    const cut = whole.subarray(0, whole.indexOf('hello') + 2);
    expect(await refusal(readFilePart(TYPE, cut, RULES))).toMatchObject(message('Malformed multipart body'));
    await new Promise((r) => setTimeout(r, 10));
  });
});
