import { readSecret } from '#areas/vault/for-llm-gateway.ts';
import type { CatalogModel } from '../records.ts';
import { localModel } from './local-model.ts';
import type { ModelProvider } from './port.ts';

/**
 * The provider behind a catalog model. Bedrock and OpenAI-compatible clients load on first use,
 * so a function that only ever calls the local model never loads their SDKs.
 */
const remote = new Map<string, Promise<ModelProvider>>();

export async function providerFor(model: CatalogModel): Promise<ModelProvider> {
  if (model.provider === 'local') return localModel;
  let loading = remote.get(model.provider);
  if (!loading) {
    loading =
      model.provider === 'bedrock'
        ? import('./bedrock.ts').then((m) => m.bedrockProvider())
        : import('./openai-compatible.ts').then((m) => m.openAiCompatibleProvider(readSecret));
    remote.set(model.provider, loading);
    loading.catch(() => remote.delete(model.provider));
  }
  return loading;
}
