import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { apiDocument } from '#api/openapi/api-document.ts';
import { mediaType } from '#shared/http/sniff.ts';
import { openAiCodeOf } from '#shared/http/openai-error.ts';
import type { OpenApiDocument, Operation, ResponseObject } from '#api/openapi/document.ts';

/** What a test received: the e2e client (Headers) and the in-process invoke (plain object) both fit. */
export interface ReceivedResponse {
  status: number;
  headers: Headers | Record<string, string | undefined>;
  text: string;
}

const COMPONENTS_ID = 'urn:openapi:components';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const headerOf = (headers: ReceivedResponse['headers'], name: string) =>
  headers instanceof Headers
    ? (headers.get(name) ?? undefined)
    : Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** `#/components/schemas/X` resolves against the whole document; in Ajv it points into one registered schema. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
          ? `${COMPONENTS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`
          : rewriteRefs(v),
      ]),
    );
  }
  return node;
}

interface Template {
  path: string;
  regex: RegExp;
  literalChars: number;
}

/**
 * Checks responses against an OpenAPI document: the operation exists, the status is listed for it,
 * the content type is one it lists (or there is no body where it lists none), listed headers are
 * present, and the body matches the JSON schema (Ajv, JSON Schema 2020-12 with formats).
 */
export class ContractChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Template[];
  /** Path prefixes whose operations answer OpenAI's error shape (`.../v1/`): so do unknown paths under them. */
  private readonly openAiPrefixes: string[];
  /** `METHOD path-template status` of every response checked, for coverage reports. */
  readonly checked = new Set<string>();

  constructor(readonly document: OpenApiDocument) {
    (formatsPlugin as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({
      $id: COMPONENTS_ID,
      $defs: rewriteRefs(document.components.schemas) as Record<string, object>,
    });
    this.templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        regex: new RegExp(
          `^${path
            .split(/(\{[^}]+\})/)
            .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
            .join('')}$`,
        ),
        literalChars: path.replace(/\{[^}]+\}/g, '').length,
      }))
      .sort((a, b) => b.literalChars - a.literalChars);
    this.openAiPrefixes = [
      ...new Set(
        Object.entries(document.paths).flatMap(([path, item]) =>
          Object.values(item).some((op) => (op['x-auth'] as { kind?: string } | undefined)?.kind === 'gatewayKey')
            ? [path.slice(0, path.indexOf('/v1/') + 4)]
            : [],
        ),
      ),
    ].filter((prefix) => prefix.endsWith('/v1/'));
  }

  /** The operation a request reaches: the most literal matching template with that method. */
  operationFor(method: string, requestPath: string): { path: string; operation: Operation } | undefined {
    const path = requestPath.split('?')[0]!;
    for (const t of this.templates) {
      const operation = this.document.paths[t.path]?.[method.toLowerCase()];
      if (operation && METHODS.includes(method.toLowerCase()) && t.regex.test(path)) return { path: t.path, operation };
    }
    return undefined;
  }

  /** Every way the response departs from the document; empty when it conforms. */
  violations(method: string, requestPath: string, res: ReceivedResponse): string[] {
    const found = this.operationFor(method, requestPath);
    if (!found) return this.unrouted(method, requestPath, res);
    const where = `${method.toUpperCase()} ${found.path} → ${res.status}`;
    const listed = found.operation.responses[String(res.status)] ?? found.operation.responses.default;
    if (!listed) {
      return [
        `${where}: status not listed for ${found.operation.operationId} (listed: ${Object.keys(found.operation.responses).join(', ')})`,
      ];
    }
    this.checked.add(`${method.toUpperCase()} ${found.path} ${res.status}`);
    const response = this.resolve(listed);
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      // A header only some of a status's codes send (Retry-After) is listed as not required.
      if ((header as { required?: boolean }).required === false) continue;
      if (headerOf(res.headers, name) === undefined) problems.push(`${where}: header ${name} missing`);
    }
    if (!response.content) {
      if (res.text !== '') problems.push(`${where}: a body where the document lists none`);
      return problems;
    }
    const received = headerOf(res.headers, 'content-type');
    if (!received)
      return [...problems, `${where}: no content-type (listed: ${Object.keys(response.content).join(', ')})`];
    const type = mediaType(received);
    const key = Object.keys(response.content).find(
      (k) => k === type || k === '*/*' || (k.endsWith('/*') && type.startsWith(k.slice(0, -1))),
    );
    if (!key)
      return [
        ...problems,
        `${where}: content-type ${received} not listed (${Object.keys(response.content).join(', ')})`,
      ];
    const schema = response.content[key]!.schema;
    let body: unknown = res.text;
    if (/[/+]json$/.test(type)) {
      try {
        body = JSON.parse(res.text);
      } catch {
        return [...problems, `${where}: body is not JSON: ${res.text.slice(0, 200)}`];
      }
    } else if (schema.contentEncoding === 'base64') {
      return problems;
    }
    const validate = this.validator(schema);
    if (!validate(body)) {
      for (const e of validate.errors ?? [])
        problems.push(`${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
    }
    return problems;
  }

  /**
   * A request no operation takes: local-only pages (`/_local/...`) are outside the document; anything
   * else must be answered 404 ROUTE_NOT_FOUND or 405 METHOD_NOT_ALLOWED in the error envelope.
   */
  private unrouted(method: string, requestPath: string, res: ReceivedResponse): string[] {
    const path = requestPath.split('?')[0]!;
    if (path.startsWith('/_local/')) return [];
    const where = `${method.toUpperCase()} ${path} → ${res.status} (no operation in the document)`;
    const expected = res.status === 405 ? 'METHOD_NOT_ALLOWED' : 'ROUTE_NOT_FOUND';
    if (res.status !== 404 && res.status !== 405)
      return [`${where}: only 404 ROUTE_NOT_FOUND or 405 METHOD_NOT_ALLOWED fit`];
    let body: { error?: { code?: string } } | undefined;
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      return [`${where}: body is not JSON`];
    }
    if (this.openAiPrefixes.some((prefix) => path.startsWith(prefix)) && !('success' in (body ?? {}))) {
      const wire = openAiCodeOf(res.status, expected).code;
      return body?.error?.code === wire ? [] : [`${where}: OpenAI error code ${body?.error?.code}, expected ${wire}`];
    }
    const validate = this.validator({ $ref: '#/components/schemas/ErrorEnvelope' });
    const problems = validate(body)
      ? []
      : (validate.errors ?? []).map((e) => `${where}: body${e.instancePath} ${e.message}`);
    if (body?.error?.code !== expected)
      problems.push(`${where}: error code ${body?.error?.code}, expected ${expected}`);
    return problems;
  }

  /** Throws with every violation listed, so a failing test shows what the document expected. */
  assert(method: string, requestPath: string, res: ReceivedResponse): void {
    const problems = this.violations(method, requestPath, res);
    if (problems.length) {
      throw new Error(
        `Response departs from the OpenAPI document:\n  ${problems.join('\n  ')}\nbody: ${res.text.slice(0, 500)}`,
      );
    }
  }

  private resolve(response: ResponseObject | { $ref: string }): ResponseObject {
    if (!('$ref' in response)) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    const found = this.document.components.responses[name];
    if (!found) throw new Error(`Unresolved response ${response.$ref}`);
    return found;
  }

  /** Compiled once per distinct schema (every error response shares one). */
  validator(schema: object): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile(rewriteRefs(schema) as object);
      this.validators.set(key, v);
    }
    return v;
  }
}

let shared: ContractChecker | undefined;

/** The checker for this API's own document (built in-process from the same route table the server serves). */
export const contract = () => (shared ??= new ContractChecker(apiDocument()));

/** Fails the test when the response departs from the document. */
export const expectContract = (method: string, requestPath: string, res: ReceivedResponse) =>
  contract().assert(method, requestPath, res);
