import type { ModelProvider } from './port.ts';
import { ProviderError } from './port.ts';

/** Any OpenAI-compatible endpoint (base URL and an API key from the vault). */
export function openAiCompatibleProvider(): ModelProvider {
  const fail = () => {
    throw new ProviderError('OpenAI-compatible provider not available', 501, false);
  };
  return { chat: async () => fail(), stream: () => fail(), embed: async () => fail() };
}
