import { describe, expect, it } from 'vitest';
import { detectType, safeFileName } from '#areas/content/file-types.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('detectType', () => {
  it('trusts a declared type only when the bytes agree', () => {
    const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest');
    expect(detectType(png, 'image/png')).toBe('image/png');
    expect(detectType(png, 'application/octet-stream')).toBe('image/png');
    expect(detectType(png, 'image/jpeg')).toBeNull();
    expect(detectType(bytes('%PDF-1.7\n'), 'application/pdf')).toBe('application/pdf');
    expect(detectType(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp')).toBe('image/webp');
    expect(detectType(bytes('GIF89a'), undefined)).toBe('image/gif');
  });

  it('tells office containers apart from other zips only by the declared type', () => {
    const zip = bytes([0x50, 0x4b, 0x03, 0x04], 'x');
    expect(detectType(zip, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(detectType(zip, 'application/zip')).toBeNull();
    expect(detectType(bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), 'application/msword')).toBe(
      'application/msword',
    );
  });

  it('accepts UTF-8 text as text only, and refuses executables, SVG with a lying type, and binary text', () => {
    expect(detectType(bytes('name,age\nAnn,3\n'), 'text/csv')).toBe('text/csv');
    expect(detectType(Buffer.from('héllo wörld'), 'text/plain')).toBe('text/plain');
    expect(detectType(bytes('<svg onload="x()"></svg>'), 'image/svg+xml')).toBeNull();
    expect(detectType(bytes('<svg></svg>'), 'image/png')).toBeNull();
    expect(detectType(bytes('MZ', [0x90, 0x00, 0x03]), 'application/octet-stream')).toBeNull();
    expect(detectType(bytes('abc', [0x00], 'def'), 'text/plain')).toBeNull();
    expect(detectType(Buffer.alloc(0), 'text/plain')).toBeNull();
  });
});

describe('safeFileName', () => {
  it('keeps a plain name and strips paths and odd characters', () => {
    expect(safeFileName('logo.png')).toBe('logo.png');
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\x\\my file (1).pdf')).toBe('my-file-1-.pdf');
    expect(safeFileName('...')).toBe('file');
  });
});
