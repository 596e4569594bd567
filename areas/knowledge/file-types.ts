import { unsupportedMediaType } from '#shared/http/errors.ts';
import { mediaType, sniff } from '#shared/http/sniff.ts';
import { FILE_TYPES, type KnowledgeFileType } from './vocabulary.ts';

/**
 * The type of a knowledge upload, decided by its first bytes with the declared type and the file
 * name's extension as hints (read by shared/http/sniff.ts, as media uploads are). A file whose
 * bytes contradict what it says it is (a "PDF" that is text, a text file named .docx) is refused
 * with 415 before anything is stored; a file that looks right but cannot be read (a corrupt PDF, a
 * ZIP that is no Word document) is accepted and ends Failed in the worker with the reason.
 */
const unsupportedKnowledgeType = (why: string) =>
  unsupportedMediaType('txt, md, html, pdf or docx', `${why}. Allowed files: txt, md, html, pdf, docx`);

/** A ZIP is taken for a DOCX: one that is none fails in the worker. */
const FORMATS = ['pdf', 'zip'] as const;

const typeOfExtension = (fileName: string | null): KnowledgeFileType | null => {
  const ext = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (!ext) return null;
  const found = Object.entries(FILE_TYPES).find(([, exts]) => (exts as readonly string[]).includes(ext));
  return (found?.[0] as KnowledgeFileType | undefined) ?? null;
};

const normalise = (declared: string | undefined): string => {
  const t = mediaType(declared);
  return t === 'text/x-markdown' ? 'text/markdown' : t;
};

/** The checked type of an upload, or a 415 naming the contradiction. */
export function detectKnowledgeType(
  head: Uint8Array,
  declared: string | undefined,
  fileName: string | null,
): KnowledgeFileType {
  const said = normalise(declared);
  const saidType = (said in FILE_TYPES ? said : null) as KnowledgeFileType | null;
  const vague = !said || said === 'application/octet-stream';
  if (!saidType && !vague) throw unsupportedKnowledgeType(`Files of type ${said} are not accepted`);
  const claimed = saidType ?? typeOfExtension(fileName);
  const byName = typeOfExtension(fileName);
  // The name and the declared type must not disagree with each other either.
  if (saidType && byName && byName !== saidType && !(isTextual(saidType) && isTextual(byName)))
    throw unsupportedKnowledgeType(`The file is named ${fileName} but declared as ${said}`);

  const found = sniff(head, FORMATS);
  if (found === 'empty') return claimed ?? 'text/plain';
  if (found === 'pdf') return expect('application/pdf', claimed);
  if (found === 'zip')
    return expect('application/vnd.openxmlformats-officedocument.wordprocessingml.document', claimed);
  if (found === 'binary') throw unsupportedKnowledgeType('The file is not text, PDF or DOCX');
  if (claimed && !isTextual(claimed)) throw unsupportedKnowledgeType(`The file says it is ${claimed} but holds text`);
  return claimed ?? 'text/plain';
}

const isTextual = (t: KnowledgeFileType) => t.startsWith('text/');

function expect(actual: KnowledgeFileType, claimed: KnowledgeFileType | null): KnowledgeFileType {
  if (claimed && claimed !== actual)
    throw unsupportedKnowledgeType(`The file says it is ${claimed} but its bytes are ${actual}`);
  return actual;
}
