import type {
  OutputConfig,
  Tool,
  ToolChoice as BedrockToolChoice,
  ToolConfiguration,
} from '@aws-sdk/client-bedrock-runtime';
import { FormatUnsupported, type ProviderRequest } from './port.ts';

/**
 * A response format on Bedrock Converse. The models AWS documents with structured output take the
 * schema itself (`outputConfig.textFormat`, constrained decoding); every other model is given a tool
 * whose input schema is the schema and made to call it, and that call's input is the answer's text.
 * JSON mode has no Converse counterpart: it is the tool with an object schema, on every model.
 */

/**
 * The models whose Converse takes `outputConfig.textFormat` (AWS: Claude Haiku 4.5, Sonnet 4.5,
 * Opus 4.5 and Opus 4.6), by model id, inference profile or ARN.
 */
const NATIVE = /anthropic\.claude-(haiku-4-5|sonnet-4-5|opus-4-5|opus-4-6)(?![0-9])/;
export const takesOutputSchema = (modelId: string) => NATIVE.test(modelId);

const RESPONSE_TOOL_DESCRIPTION =
  'Give your answer by calling this tool: its input is the answer, in the shape asked for.';

export interface ConverseShape {
  toolConfig?: ToolConfiguration;
  outputConfig?: OutputConfig;
  /** The tool standing for the answer, when the shape is a forced tool. */
  responseTool: string | null;
}

const isObjectSchema = (s: Record<string, unknown>) =>
  s.type === 'object' || (s.type === undefined && (s.properties !== undefined || s.additionalProperties !== undefined));

/**
 * The request's tools, tool choice and format as Converse's. With the answer as a tool: no tools (or
 * `none`) forces that tool; `auto` with tools lets the model call one of them or answer (`any` over
 * both); `required` or a named function needs no answer tool (the answer is a call).
 */
export function converseShape(
  req: ProviderRequest,
  tools: Tool[],
  toolChoice: BedrockToolChoice | undefined,
): ConverseShape {
  const plain: ToolConfiguration | undefined = tools.length
    ? { tools, ...(toolChoice ? { toolChoice } : {}) }
    : undefined;
  const format = req.responseFormat;
  if (!format) return { toolConfig: plain, responseTool: null };
  const modelId = req.model.providerModel;
  if (format.type === 'json_schema' && takesOutputSchema(modelId)) {
    const jsonSchema = {
      schema: JSON.stringify(format.schema),
      name: format.name,
      ...(format.description ? { description: format.description } : {}),
    };
    return {
      toolConfig: plain,
      outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema } } },
      responseTool: null,
    };
  }
  const name = format.type === 'json_schema' ? format.name : 'json_object';
  const schema = format.type === 'json_schema' ? format.schema : { type: 'object' };
  if (!isObjectSchema(schema))
    throw new FormatUnsupported(
      `${req.model.name} takes a shape as a tool's input, whose schema must be an object (type: object)`,
    );
  const choice = req.toolChoice;
  if (tools.length && (choice === 'required' || typeof choice === 'object'))
    return { toolConfig: plain, responseTool: null };
  if (tools.some((t) => t.toolSpec?.name === name))
    throw new FormatUnsupported(`the format's name '${name}' is also the name of one of the tools`);
  const answer: Tool = {
    toolSpec: {
      name,
      description:
        format.type === 'json_schema' ? (format.description ?? RESPONSE_TOOL_DESCRIPTION) : RESPONSE_TOOL_DESCRIPTION,
      inputSchema: { json: schema as never },
    },
  };
  const offered = choice === 'none' ? [] : tools;
  return {
    toolConfig: offered.length
      ? { tools: [...offered, answer], toolChoice: { any: {} } }
      : { tools: [answer], toolChoice: { tool: { name } } },
    responseTool: name,
  };
}
