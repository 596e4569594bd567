import { listModels } from '#areas/llm-gateway/for-agents.ts';

/** The catalog's active models a tenant may build agents with (its prices per million tokens). */
export async function tenantModels() {
  return (await listModels({ activeOnly: true })).map((m) => ({
    id: m.id,
    name: m.name,
    kind: m.kind,
    inputPricePerMillion: m.inputPricePerMillion,
    outputPricePerMillion: m.outputPricePerMillion,
    contextWindow: m.contextWindow,
  }));
}
