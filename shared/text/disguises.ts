/**
 * What hides a planted instruction from a plain search: invisible characters, compatibility forms,
 * letters of other scripts that look like Latin ones, base64. The ingest flags and the local model
 * that falls for planted text read through the same disguises, so each test of the one meets the
 * other.
 */

/** Cyrillic, Greek and other letters that look like Latin ones, as planted text uses them to dodge filters. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ɡ: 'g',
  һ: 'h',
  ⅼ: 'l',
  м: 'm',
  т: 't',
  ո: 'n',
  α: 'a',
  ο: 'o',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'g');
/** Zero-width, joiner, direction and filler characters: invisible on screen, splitting words for a search. */
const INVISIBLE = /\u034f|[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;
const BASE64_RUN = /[A-Za-z0-9+/]{16,}={0,2}/g;

/** Compatibility forms folded (full-width letters become plain), invisible characters removed. */
export const withoutInvisible = (s: string) => s.normalize('NFKC').replace(INVISIBLE, '');

/** Look-alike letters mapped to the Latin ones they imitate. */
export const mapLookAlikes = (s: string) => s.replace(LOOK_ALIKE, (c) => LOOK_ALIKES[c] ?? c);

/**
 * Base64 runs of the text that decode to readable text (a hash or an id decodes to noise), at most
 * `max` of them.
 */
export function base64Texts(s: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(BASE64_RUN)) {
    if (out.length >= max) break;
    const text = Buffer.from(m[0], 'base64').toString('utf8');
    if (/^[\p{L}\p{N}\p{P}\p{Zs}\p{S}\n\r\t]+$/u.test(text)) out.push(text);
  }
  return out;
}
