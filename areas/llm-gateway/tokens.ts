/**
 * Token counts with a real tokenizer (gpt-tokenizer, o200k_base): the local model's usage, the
 * gateway's worst-case reservation and knowledge's chunk sizes all count the same way. The
 * encoder's rank tables are about 2 MB of code, so they load on first use, never at a function's
 * cold start.
 */
type Tokenizer = typeof import('gpt-tokenizer');

let loading: Promise<Tokenizer> | undefined;

function tokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer');
  return loading;
}

/**
 * A special token's text (`<|endoftext|>`, `<|im_start|>`) in a document or a message is text like
 * any other: counted and split as its characters, never refused (the package throws by default).
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export async function countTokens(text: string): Promise<number> {
  return (await tokenizer()).countTokens(text, AS_TEXT);
}

/** The tokens of a text, for splitting it at token boundaries (chunking). */
export async function encodeTokens(text: string): Promise<number[]> {
  return (await tokenizer()).encode(text, AS_TEXT);
}

export async function decodeTokens(tokens: readonly number[]): Promise<string> {
  return (await tokenizer()).decode(tokens);
}
