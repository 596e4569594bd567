/**
 * Text that reads like instructions to an AI rather than content for a visitor: flagged at ingest
 * (docs/decisions/knowledge.md, "Flagged chunks"). A flag is a signal, not a verdict: the chunk is
 * still indexed and shown with its reason; a base set to `excludeFlagged` keeps it out of retrieval,
 * and the agent runtime asks a person before a side-effecting tool runs on a turn that read one.
 * The checks run on a normalised copy (compatibility forms, invisible characters removed, common
 * look-alike letters mapped, base64 runs decoded), so the usual disguises meet the same patterns.
 */

import { base64Texts, mapLookAlikes, withoutInvisible } from '#shared/text/disguises.ts';

const MAX_DECODED = 8;

/** The text as the patterns read it: as written (for other scripts), and with look-alikes mapped to Latin. */
function readings(text: string): string[] {
  const plain = withoutInvisible(text).toLowerCase().replace(/\s+/g, ' ');
  return [plain, mapLookAlikes(plain)];
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
  const variants = [text, ...base64Texts(text, MAX_DECODED)].flatMap(readings);
  for (const v of variants) for (const rule of RULES) if (rule.pattern.test(v)) return rule.reason;
  return null;
}
