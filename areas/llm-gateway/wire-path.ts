/**
 * Where OpenAI clients point their `baseURL`: every path under it speaks OpenAI's wire format, the
 * paths no route serves included (the `$default` fallback reads this, so it loads nothing else).
 */
export const V1_PATH = '/api/llm-gateway/v1';

export const underV1 = (path: string) => path === V1_PATH || path.startsWith(`${V1_PATH}/`);
