/**
 * The content area's vocabulary: enums, presets, limits and patterns. The route files
 * (`areas/content/routes/admin.ts`, `content-public.ts`) build their schemas from these; the
 * area's logic checks against the same values. No imports: any bundle may take it.
 */

/** PageType values (documented in docs/decisions/content.md, "Values"). */
export const PAGE_TYPES = ['Standard', 'Home', 'Landing', 'Contact', 'Legal', 'Custom'] as const;
/** FormSubmissionStatus values. */
export const FORM_STATUSES = ['New', 'Read', 'InProgress', 'Resolved', 'Archived', 'Spam'] as const;
export const FORM_SPAM = 5;
export const NAV_LOCATIONS = ['header', 'footer', 'sidebar'] as const;
export const NAV_MAX_DEPTH = 3;
export const NAV_MAX_ITEMS = 50;
/** A hidden form field real visitors leave empty; a value marks the submission as Spam. */
export const HONEYPOT_FIELD = '_honeypot';
export const FORM_MAX_FIELDS = 50;
export const FORM_MAX_BYTES = 64 * 1024;
export const MEDIA_MAX_BYTES = 10 * 1024 * 1024;
/** What a Lambda request carries: 6 MB of payload, base64-encoded, minus multipart framing. */
export const DIRECT_UPLOAD_MAX_BYTES = 4_400_000;
/** The 413 of a direct upload over it: larger files up to MEDIA_MAX_BYTES go through the presigned upload. */
export const DIRECT_UPLOAD_TOO_LARGE =
  'A file sent in the request may have at most 4,400,000 bytes (about 4.4 MB, what an API request carries once encoded). ' +
  'Files up to 10 MB go through POST /api/content/admin/sites/{siteId}/media/presigned-upload, then its complete';

export const THEME_PRESETS = {
  classic: { primaryColor: '#1e3a8a', secondaryColor: '#f59e0b', fontFamily: 'Georgia, serif' },
  modern: { primaryColor: '#111827', secondaryColor: '#10b981', fontFamily: 'Inter, Helvetica, Arial, sans-serif' },
  warm: { primaryColor: '#9a3412', secondaryColor: '#fde68a', fontFamily: 'Merriweather, Georgia, serif' },
  ocean: { primaryColor: '#0e7490', secondaryColor: '#e0f2fe', fontFamily: 'Open Sans, Arial, sans-serif' },
} as const;
export type ThemePreset = keyof typeof THEME_PRESETS;
export const THEME_PRESET_NAMES = Object.keys(THEME_PRESETS) as [ThemePreset, ...ThemePreset[]];

/** Theme values: nothing in them can leave a CSS declaration (no quotes, semicolons or braces). */
export const COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const FONT_FAMILY = /^[A-Za-z0-9][A-Za-z0-9 ,-]{0,99}$/;

/** A lowercase host name with at least one dot. */
export const HOST = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const SLUG_MAX = 100;
/**
 * A BCP 47 tag as the API takes it: language (2-3 letters), optional script (4 letters), optional
 * region (2 letters or 3 digits), optional variant (5-8 letters and digits, or a digit and 3).
 * Every tag this matches is one `Intl.getCanonicalLocales` accepts, so the documented pattern is
 * the whole rule (a unit test proves it).
 */
export const LOCALE =
  /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))?$/;
/**
 * A link a site shows: an http(s) URL, or a path on the site itself. A path's second character may
 * not be `/` or `\`: browsers read `//host` and `/\host` as another host. No backslash, space or
 * control character anywhere: browsers drop or rewrite some of them before reading a URL.
 */
const URL_CHAR = String.raw`[^\s<>"\\\x00-\x1f\x7f]`;
const FIRST_CHAR = String.raw`[^\s<>"\\/\x00-\x1f\x7f]`;
export const SITE_URL = new RegExp(`^(https?://${FIRST_CHAR}${URL_CHAR}*|/(${FIRST_CHAR}${URL_CHAR}*)?)$`);
export const URL_MAX = 2000;
/** A media folder: lowercase letters, digits, `-` and `_`. */
export const FOLDER = /^[a-z0-9][a-z0-9_-]{0,49}$/;

/** themeConfig and metadata: JSON objects of at most this many characters and levels. */
export const SITE_JSON_MAX = 16_384;
export const JSON_MAX_DEPTH = 16;
/** Page settings and translation content blocks (JSON strings). */
export const SETTINGS_MAX = 16_384;
export const BLOCKS_MAX = 100_000;
