/** What the knowledge area uses of the content area: the one module of content it imports. */
export { copyMediaObject, deleteObject, deletePrefix, objectHead, presignPut } from './objects.ts';
export { publishedSiteContent, type SiteContentItem } from './site-content.ts';
