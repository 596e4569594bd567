import { describe, expect, it } from 'vitest';
import { mediaType, sniff } from '#shared/http/sniff.ts';

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))));
const ALL = ['png', 'jpeg', 'gif', 'webp', 'pdf', 'zip', 'ole'] as const;

describe('sniff', () => {
  it('names a format by its magic number, only among those asked for', () => {
    expect(sniff(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'x'), ALL)).toBe('png');
    expect(sniff(bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 '), ALL)).toBe('webp');
    expect(sniff(bytes('%PDF-1.7\n'), ['pdf', 'zip'])).toBe('pdf');
    expect(sniff(bytes([0x50, 0x4b, 0x03, 0x04], 'x'), ['pdf', 'zip'])).toBe('zip');
    // Text that starts like a format nobody asked for is text.
    expect(sniff(bytes('GIF89a is an image format\n'), ALL)).toBe('gif');
    expect(sniff(bytes('GIF89a is an image format\n'), ['pdf', 'zip'])).toBe('text');
  });

  it('takes UTF-8 without control bytes as text, a character cut at the end of the sample too', () => {
    expect(sniff(bytes('tab\there\r\nform\f'), [])).toBe('text');
    expect(sniff(bytes([0xef, 0xbb, 0xbf], 'with a BOM'), [])).toBe('text');
    expect(sniff(bytes('price: 5 ', [0xe2, 0x82]), [])).toBe('text');
    expect(sniff(bytes('nul', [0]), [])).toBe('binary');
    expect(sniff(bytes('escape', [0x1b], '[0m'), [])).toBe('binary');
    expect(sniff(bytes([0x80], 'not UTF-8'), [])).toBe('binary');
    expect(sniff(bytes(), ALL)).toBe('empty');
  });
});

describe('mediaType', () => {
  it('drops the parameters and the case of a Content-Type', () => {
    expect(mediaType('Text/Plain ; charset=UTF-8')).toBe('text/plain');
    expect(mediaType(undefined)).toBe('');
  });
});
