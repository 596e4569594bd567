import type { z } from 'zod/mini';
import { safeParse } from 'zod/mini';
import { invalidJson, validationError, type IssueDetail } from '#shared/http/errors.ts';
import type { AnySchema } from '#shared/routes/types.ts';
import type { MiddyRequest } from '#shared/runtime/request.ts';

const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const schemaType = (schema: AnySchema) => (schema as { _zod: { def: { type: string } } })._zod.def.type;

function parse(schema: AnySchema | undefined, value: unknown, where: string, issues: IssueDetail[]) {
  if (!schema) return value;
  const result = safeParse(schema as z.ZodMiniType, value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    issues.push({ path: [where, ...issue.path.map(String)].join('.'), message: issue.message });
  }
  return undefined;
}

/** Every path parameter, query value and body is parsed before the handler runs. */
export const validate = () => ({
  before: async (request: MiddyRequest) => {
    const { state } = request.context;
    const route = state.route!;
    if (
      route.body &&
      schemaType(route.body) === 'object' &&
      (route.bodyType ?? 'json') === 'json' &&
      !isPlainObject(state.body)
    ) {
      throw invalidJson('Request body must be a JSON object');
    }
    const issues: IssueDetail[] = [];
    state.params = parse(route.params, request.event.pathParameters ?? {}, 'params', issues);
    state.query = parse(route.query, request.event.queryStringParameters ?? {}, 'query', issues);
    if ((route.bodyType ?? 'json') === 'json') state.body = parse(route.body, state.body, 'body', issues);
    if (issues.length) throw validationError(issues.slice(0, 50));
  },
});
