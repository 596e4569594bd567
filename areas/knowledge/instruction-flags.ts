/**
 * Text that reads like instructions to an AI rather than content for a visitor: flagged at ingest
 * (docs/decisions/knowledge.md, "Flagged chunks"). A flag is a signal, not a verdict: the chunk is
 * still indexed and shown with its reason; a base set to `excludeFlagged` keeps it out of retrieval,
 * and the agent runtime asks a person before a side-effecting tool runs on a turn that read one.
 * The checks run on a normalised copy (compatibility forms, invisible characters removed, common
 * look-alike letters mapped, base64 runs decoded), so the usual disguises meet the same patterns.
 */

/** Cyrillic and Greek letters that look like Latin ones, as planted text uses them to dodge filters. */
const LOOKALIKES: Record<string, string> = {
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
  ο: 'o',
  α: 'a',
  ε: 'e',
  ι: 'i',
  ν: 'v',
  τ: 't',
  κ: 'k',
};
const INVISIBLE = /\u034f|[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;
const BASE64_RUN = /[A-Za-z0-9+/]{24,}={0,2}/g;
const MAX_DECODED = 8;

const mapLookalikes = (s: string) => s.replace(/[\u0080-\uffff]/g, (ch) => LOOKALIKES[ch] ?? ch);

/** Base64 runs that decode to readable text: what a planted instruction hides in. */
function decodedRuns(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(BASE64_RUN)) {
    if (out.length >= MAX_DECODED) break;
    const decoded = Buffer.from(m[0], 'base64').toString('utf8');
    if (/^[\p{L}\p{N}\p{P}\p{Zs}\n]+$/u.test(decoded)) out.push(decoded);
  }
  return out;
}

/** The text as the patterns read it: as written (for other scripts), and with look-alikes mapped to Latin. */
function readings(text: string): string[] {
  const plain = text.normalize('NFKC').replace(INVISIBLE, '').toLowerCase().replace(/\s+/g, ' ');
  return [plain, mapLookalikes(plain)];
}

const RULES: { reason: string; pattern: RegExp }[] = [
  {
    reason: 'Asks to ignore earlier instructions',
    pattern:
      /\b(ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|your|system|original)\b[^.\n]{0,30}\b(instructions?|prompts?|rules?|directions?|guidelines?|context|messages?)\b/,
  },
  {
    reason: 'Asks to ignore earlier instructions',
    pattern:
      /(ignore[zr]?|oubliez?)\b[^.\n]{0,30}\binstructions?\b|\bignora\b[^.\n]{0,30}\binstrucciones\b|\bignorier(e|en)?\b[^.\n]{0,30}\banweisungen\b|\bignore\b[^.\n]{0,30}\binstruções\b|\bignora\b[^.\n]{0,30}\bistruzioni\b|\bnegeer\b[^.\n]{0,30}\binstructies\b|игнорируй|忽略.{0,10}指令|以前の指示を無視/,
  },
  {
    reason: 'Speaks to an AI assistant',
    pattern:
      /\b(dear|attention|note to|hey|hello|hi)\s+(ai|assistant|chatbot|bot|llm|language model|gpt|claude|agent)\b|\b(ai|assistant|chatbot|llm|language model)s?\b[^.\n]{0,30}\b(must|should|shall|are instructed|need to|have to)\b|\byou are now\b|\bfrom now on,? you\b|\bnew instructions?\s*:/,
  },
  {
    reason: 'Asks for hidden instructions',
    pattern:
      /\b(reveal|print|show|repeat|output|disclose|leak)\b[^.\n]{0,30}\b(system prompt|hidden (instructions|prompt)|your (instructions|prompt|rules))\b/,
  },
  {
    reason: 'Carries a chat role marker',
    pattern:
      /(^|\s)(system|assistant|developer)\s*:\s|<\|?(im_start|im_end|system|endoftext)\|?>|\[\/?inst\]|<<\/?sys>>|###\s*(system|instruction)|"role"\s*:\s*"(system|assistant|developer|tool)"/,
  },
  {
    reason: 'Names a tool call with arguments',
    pattern: /\b[a-z][a-z0-9]*(_[a-z0-9]+)+\s*\(?\s*\{\s*"[^"]{1,60}"\s*:/,
  },
  {
    reason: 'Asks to act without telling the user',
    pattern:
      /\b(do not|don't|never)\s+(tell|inform|mention|reveal|let)\b[^.\n]{0,30}\b(user|visitor|customer|human)\b|\bwithout (telling|informing|asking) the (user|visitor|customer)\b/,
  },
];

/** The reason a text reads like instructions to an AI, or null. */
export function instructionFlag(text: string): string | null {
  const variants = [text, ...decodedRuns(text)].flatMap(readings);
  for (const v of variants) for (const rule of RULES) if (rule.pattern.test(v)) return rule.reason;
  return null;
}
