import { countTokens } from '../tokens.ts';

/** What a cross-encoder reads for one rerank call: the query beside every document. */
export async function rerankTokens(query: string, documents: string[]): Promise<number> {
  let tokens = (await countTokens(query)) * documents.length;
  for (const doc of documents) tokens += await countTokens(doc);
  return tokens;
}
