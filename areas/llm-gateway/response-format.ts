import { validationError } from '#shared/http/errors.ts';
import { modelOutputInvalid, unsupportedResponseFormat } from './errors.ts';
import { FormatUnsupported, type ResponseFormat, type ToolChoice, type ToolDef } from './providers/port.ts';
import { compileSchema, firstIssue } from './schema-check.ts';

/**
 * Structured outputs at the gateway: the wire's shapes as the port's, the checks made before the call
 * (a schema that compiles, a tool choice that names an offered tool) and after it (a strict answer
 * conforms to its schema, JSON mode's answer is a JSON object). What a model cannot honour is refused
 * naming the request's field.
 */

/** Where each wire carries the format, for the refusals' `param`. */
export interface FormatParams {
  root: string;
  schema: string;
}
export const CHAT_FORMAT_PARAMS: FormatParams = {
  root: 'response_format',
  schema: 'response_format.json_schema.schema',
};
export const RESPONSES_FORMAT_PARAMS: FormatParams = { root: 'text.format', schema: 'text.format.schema' };

interface JsonSchemaFields {
  name: string;
  description?: string | null;
  schema?: Record<string, unknown> | null;
  strict?: boolean | null;
}
export type WireChatFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: JsonSchemaFields };
export type WireTextFormat = { type: 'text' } | { type: 'json_object' } | ({ type: 'json_schema' } & JsonSchemaFields);

function fromSchemaFields(f: JsonSchemaFields, params: FormatParams): ResponseFormat {
  if (!f.schema)
    throw validationError([{ path: `body.${params.schema}`, message: 'A json_schema format needs its schema' }]);
  return {
    type: 'json_schema',
    name: f.name,
    ...(f.description ? { description: f.description } : {}),
    schema: f.schema,
    strict: f.strict === true,
  };
}

/** Chat completions' `response_format`; `text` is no format. */
export function fromChatFormat(f: WireChatFormat | null | undefined): ResponseFormat | undefined {
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  return fromSchemaFields(f.json_schema, CHAT_FORMAT_PARAMS);
}

/** The Responses API's `text.format`. */
export function fromTextFormat(f: WireTextFormat | null | undefined): ResponseFormat | undefined {
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  const { type: _type, ...fields } = f;
  return fromSchemaFields(fields, RESPONSES_FORMAT_PARAMS);
}

/** A forced tool choice must name what is offered: OpenAI refuses it too, rather than answering text. */
export function checkToolChoice(tools: readonly ToolDef[] | undefined, choice: ToolChoice | undefined) {
  if (!choice || choice === 'auto' || choice === 'none') return;
  if (!tools?.length)
    throw validationError([{ path: 'body.tool_choice', message: 'A forced tool choice needs tools to choose from' }]);
  if (choice !== 'required' && !tools.some((t) => t.function.name === choice.function.name))
    throw validationError([
      { path: 'body.tool_choice', message: `The function '${choice.function.name}' is not among the tools` },
    ]);
}

/** Checks an answer's text against the format: null when it conforms, else what is wrong. */
export type Conformance = (content: string) => string | null;

const parsed = (content: string): { value: unknown } | null => {
  try {
    return { value: JSON.parse(content) };
  } catch {
    return null;
  }
};

/**
 * Before the call: the schema compiles (else 400 naming it). What the answer will be checked with:
 * a strict schema's validator, JSON mode's "one JSON object"; nothing for a schema that is not strict
 * (OpenAI does not promise it either) beyond being JSON.
 */
export async function conformanceOf(
  format: ResponseFormat | undefined,
  params: FormatParams,
): Promise<Conformance | null> {
  if (!format) return null;
  if (format.type === 'json_object')
    return (content) => {
      const p = parsed(content);
      return p?.value && typeof p.value === 'object' && !Array.isArray(p.value) ? null : 'not a JSON object';
    };
  const compiled = await compileSchema(format.schema);
  if ('error' in compiled)
    throw validationError([{ path: `body.${params.schema}`, message: compiled.error.slice(0, 500) }]);
  const { validate } = compiled;
  return (content) => {
    const p = parsed(content);
    if (!p) return 'not JSON';
    if (!format.strict) return null;
    return validate(p.value) ? null : firstIssue(validate);
  };
}

/** A conformance failure as the answer's refusal (502: the model's, not the caller's). */
export function nonConforming(conforms: Conformance | null, content: string | null) {
  if (!conforms || content === null) return null;
  const why = conforms(content);
  return why ? modelOutputInvalid(why) : null;
}

/** A provider's "cannot follow this shape" as the 400 naming the request's field. */
export function asFormatRefusal(err: unknown, params: FormatParams): unknown {
  return err instanceof FormatUnsupported ? unsupportedResponseFormat(params.root, err.message) : err;
}
