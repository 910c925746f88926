/**
 * How the scripted server records a request: the raw HTTP parts plus the conversation normalised across the
 * OpenAI Chat Completions and Responses APIs, Anthropic's Messages API and Gemini's generateContent, so tests
 * assert on roles and texts instead of wire formats.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The APIs the scripted server speaks. */
export type ScriptedApi = 'chat' | 'responses' | 'anthropic' | 'gemini' | 'other';

/** One message of a request, normalised across the APIs so tests can assert on conversations. */
export interface NormalizedMessage {
  /** `system`, `developer`, `user`, `assistant` or `tool` (a tool result). */
  readonly role: string;
  /** The text content (parts joined with newlines); for a tool result, its output. */
  readonly text: string;
  /** For an assistant message with tool calls: the tool names called. */
  readonly toolCalls?: readonly string[];
  /** For a tool result: the call id it answers. */
  readonly toolCallId?: string;
}

/** A request the server received. */
export interface RecordedRequest {
  /** Which API was called. `other` for any other path (answered with 404). */
  readonly api: ScriptedApi;
  readonly method: string;
  /** The request path, e.g. `/v1/chat/completions`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (`undefined` when empty or not JSON). */
  readonly body: unknown;
  /** The `model` field of the body. */
  readonly model: string;
  /** Whether the client asked for a server-sent-events stream. */
  readonly stream: boolean;
  /** The conversation sent, normalised (Responses `item_reference`s are resolved to the items they name). */
  readonly messages: readonly NormalizedMessage[];
  /** Names of the tools offered. */
  readonly toolNames: readonly string[];
  /** The key sent: the bearer token of `authorization`, `x-api-key` (Anthropic) or `x-goog-api-key` (Gemini). */
  readonly apiKey?: string;
}

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return asArray(value)
    .map((part) => {
      const object = asObject(part);
      return typeof object.text === 'string' ? object.text : '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** Builds the record of one request; `servedItems` resolves Responses `item_reference`s. */
export function recordRequest(input: {
  api: RecordedRequest['api'];
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  servedItems: ReadonlyMap<string, NormalizedMessage>;
}): RecordedRequest {
  const body = asObject(input.body);
  const authorization = input.headers.authorization;
  const header = (name: string) => {
    const value = input.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const apiKey = authorization?.startsWith('Bearer ')
    ? authorization.slice('Bearer '.length)
    : (header('x-api-key') ?? header('x-goog-api-key'));
  const tools = asArray(body.tools).map(asObject);
  const toolNames =
    input.api === 'gemini'
      ? tools.flatMap((tool) => asArray(tool.functionDeclarations).map((fn) => String(asObject(fn).name)))
      : tools.map((tool) => String(asObject(tool.function).name ?? tool.name ?? ''));
  const messages =
    input.api === 'chat'
      ? normalizeChatMessages(body.messages)
      : input.api === 'anthropic'
        ? normalizeAnthropicMessages(body.system, body.messages)
        : input.api === 'gemini'
          ? normalizeGeminiContents(body.systemInstruction, body.contents)
          : normalizeResponsesInput(body.input, input.servedItems);
  const geminiPath = /\/models\/([^/:]+):(generateContent|streamGenerateContent)/.exec(input.path);
  return {
    api: input.api,
    method: input.method,
    path: input.path,
    headers: input.headers,
    body: input.body,
    model: geminiPath?.[1] ?? (typeof body.model === 'string' ? body.model : ''),
    stream: geminiPath === null ? body.stream === true : geminiPath[2] === 'streamGenerateContent',
    messages,
    toolNames,
    ...(apiKey === undefined ? {} : { apiKey }),
  };
}

function normalizeChatMessages(messages: unknown): NormalizedMessage[] {
  return asArray(messages).map((item) => {
    const message = asObject(item);
    const role = String(message.role ?? '');
    const toolCalls = asArray(message.tool_calls).map((call) =>
      String(asObject(asObject(call).function).name),
    );
    return {
      role,
      text: asText(message.content),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      ...(typeof message.tool_call_id === 'string' ? { toolCallId: message.tool_call_id } : {}),
    };
  });
}

function normalizeResponsesInput(
  input: unknown,
  servedItems: ReadonlyMap<string, NormalizedMessage>,
): NormalizedMessage[] {
  if (typeof input === 'string') return [{ role: 'user', text: input }];
  const result: NormalizedMessage[] = [];
  for (const raw of asArray(input)) {
    const item = asObject(raw);
    if (item.type === 'item_reference') {
      const served = servedItems.get(String(item.id));
      result.push(served ?? { role: 'unknown', text: `item_reference ${String(item.id)}` });
    } else if (item.type === 'function_call') {
      const previous = result.at(-1);
      // Consecutive calls of one assistant turn are one message, as in Chat Completions.
      if (previous?.role === 'assistant' && previous.toolCalls !== undefined && previous.text === '') {
        result[result.length - 1] = {
          ...previous,
          toolCalls: [...previous.toolCalls, String(item.name)],
        };
      } else result.push({ role: 'assistant', text: '', toolCalls: [String(item.name)] });
    } else if (item.type === 'function_call_output') {
      result.push({ role: 'tool', text: asText(item.output), toolCallId: String(item.call_id) });
    } else if (typeof item.role === 'string') {
      result.push({ role: item.role, text: asText(item.content) });
    }
  }
  return result;
}

function normalizeAnthropicMessages(system: unknown, messages: unknown): NormalizedMessage[] {
  const result: NormalizedMessage[] = [];
  const systemText = asText(system);
  if (systemText !== '') result.push({ role: 'system', text: systemText });
  for (const item of asArray(messages)) {
    const message = asObject(item);
    const role = String(message.role ?? '');
    if (typeof message.content === 'string') {
      result.push({ role, text: message.content });
      continue;
    }
    const parts = asArray(message.content).map(asObject);
    for (const part of parts.filter((candidate) => candidate.type === 'tool_result')) {
      result.push({ role: 'tool', text: asText(part.content), toolCallId: String(part.tool_use_id) });
    }
    const texts = parts.filter((part) => part.type === 'text');
    const toolCalls = parts.filter((part) => part.type === 'tool_use').map((part) => String(part.name));
    if (texts.length > 0 || toolCalls.length > 0) {
      result.push({
        role,
        text: asText(texts),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
    }
  }
  return result;
}

function normalizeGeminiContents(systemInstruction: unknown, contents: unknown): NormalizedMessage[] {
  const result: NormalizedMessage[] = [];
  const systemText = asText(asObject(systemInstruction).parts);
  if (systemText !== '') result.push({ role: 'system', text: systemText });
  for (const item of asArray(contents)) {
    const content = asObject(item);
    const role = content.role === 'model' ? 'assistant' : String(content.role ?? 'user');
    const parts = asArray(content.parts).map(asObject);
    for (const part of parts.filter((candidate) => candidate.functionResponse !== undefined)) {
      const functionResponse = asObject(part.functionResponse);
      const output = asObject(functionResponse.response);
      const text =
        typeof output.content === 'string' ? output.content : JSON.stringify(output.content ?? output);
      result.push({ role: 'tool', text, toolCallId: String(functionResponse.name) });
    }
    const texts = parts.filter((part) => typeof part.text === 'string');
    const toolCalls = parts
      .filter((part) => part.functionCall !== undefined)
      .map((part) => String(asObject(part.functionCall).name));
    if (texts.length > 0 || toolCalls.length > 0) {
      result.push({ role, text: asText(texts), ...(toolCalls.length > 0 ? { toolCalls } : {}) });
    }
  }
  return result;
}
