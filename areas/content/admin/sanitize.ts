import type { IOptions } from 'sanitize-html';

/**
 * Rich text is sanitized on write with sanitize-html (htmlparser2 underneath), loaded on first use
 * so the function's cold start does not pay for it. Kept: sanitize-html's default text tags plus
 * images and h1/h2; links and images only over http(s), mailto and site paths; no script, style,
 * iframe, form or event-handler attribute survives.
 */
let loaded: Promise<(html: string) => string> | undefined;

const load = async () => {
  const { default: sanitize } = await import('sanitize-html');
  const options: IOptions = {
    allowedTags: [...sanitize.defaults.allowedTags, 'img', 'h1', 'h2'],
    allowedAttributes: {
      a: ['href', 'name', 'target', 'rel', 'title'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      '*': ['class'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
  };
  return (html: string) => sanitize(html, options);
};

export const sanitizeHtml = async (html: string) => {
  loaded ??= load();
  return (await loaded)(html);
};
