import type { ModelProvider } from './port.ts';
import { ProviderError } from './port.ts';

/** Amazon Bedrock (Converse, ConverseStream, InvokeModel for embeddings). */
export function bedrockProvider(): ModelProvider {
  const fail = () => {
    throw new ProviderError('Bedrock provider not available', 501, false);
  };
  return { chat: async () => fail(), stream: () => fail(), embed: async () => fail() };
}
