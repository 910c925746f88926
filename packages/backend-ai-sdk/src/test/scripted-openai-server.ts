/**
 * A scripted OpenAI-compatible HTTP server for tests: a real `node:http` server on 127.0.0.1 that speaks the Chat
 * Completions API (`POST /v1/chat/completions`) and the Responses API (`POST /v1/responses`), streaming and not,
 * answers each model request with the next step of a script, and records every request. The only fake in our
 * end-to-end tests is the LLM (STYLE.md §8); the real `@ai-sdk/openai` client talks to it over HTTP.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts a scripted reply reports. Default: 10 input, 5 output. */
export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** One tool call of a scripted reply. */
export interface ScriptedToolCall {
  /** The tool name, e.g. `write_file`. */
  readonly name: string;
  /** The arguments: an object (serialised as JSON) or a raw string sent as is (to test malformed JSON). */
  readonly arguments: Readonly<Record<string, unknown>> | string;
}

/** What the server answers to one model request. */
export type ScriptedReply =
  /** A plain assistant message; the model is done. */
  | { readonly type: 'text'; readonly text: string; readonly usage?: ScriptedUsage }
  /** One or more tool calls (optionally with text before them); the client executes them and asks again. */
  | {
      readonly type: 'tool-calls';
      readonly calls: readonly ScriptedToolCall[];
      readonly text?: string;
      readonly usage?: ScriptedUsage;
    }
  /**
   * An HTTP error with an OpenAI-style body `{ error: { message, type, code } }`, e.g. 429, 401, 500. `message`
   * defaults to a description of the status.
   */
  | {
      readonly type: 'error';
      readonly status: number;
      readonly message?: string;
      readonly code?: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A script step: a reply, or a function choosing the reply from the request it answers. */
export type ScriptedStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

/** One message of a request, normalised across both APIs so tests can assert on conversations. */
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
  readonly api: 'chat' | 'responses' | 'other';
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
  /** The bearer token of the `authorization` header, if any. */
  readonly apiKey?: string;
}

/** Options of {@link startScriptedOpenAIServer}. */
export interface ScriptedOpenAIServerOptions {
  /** The replies, consumed one per model request, in order. More can be added with `enqueue`. */
  readonly script?: readonly ScriptedStep[];
  /**
   * The step used once the script is used up. Default: an HTTP 500 error whose message says the script is
   * exhausted (so a test that makes more requests than it scripted fails loudly).
   */
  readonly fallback?: ScriptedStep;
  /** When set, requests whose bearer token differs get a 401 `invalid_api_key` error (not consuming a step). */
  readonly apiKey?: string;
}

/** A running scripted server. */
export interface ScriptedOpenAIServer {
  /** The base URL to give the OpenAI client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** Every request received, in order (model requests and others). */
  readonly requests: readonly RecordedRequest[];
  /** Appends steps to the script. */
  enqueue(...steps: readonly ScriptedStep[]): void;
  /** How many scripted steps are still unused. */
  remaining(): number;
  /** Stops the server and closes open connections. */
  close(): Promise<void>;
}

const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 10, outputTokens: 5 };

/**
 * Starts a scripted OpenAI-compatible server on `127.0.0.1` with a free port.
 *
 * @example
 * const server = await startScriptedOpenAIServer({
 *   script: [
 *     { type: 'tool-calls', calls: [{ name: 'write_file', arguments: { file_path: 'a.txt', content: 'hi' } }] },
 *     { type: 'text', text: 'Wrote a.txt' },
 *   ],
 * });
 * const backend = createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'test', defaultModel: 'gpt-test' });
 * // ... run a stage ...
 * expect(server.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool' });
 * await server.close();
 */
export async function startScriptedOpenAIServer(
  options: ScriptedOpenAIServerOptions = {},
): Promise<ScriptedOpenAIServer> {
  const script: ScriptedStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  /** Output items served so far by id, to resolve Responses `item_reference`s like OpenAI's stored items. */
  const servedItems = new Map<string, NormalizedMessage>();
  let sequence = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = parseJson(raw);
      const path = request.url ?? '';
      const api = path.endsWith('/chat/completions')
        ? 'chat'
        : path.endsWith('/responses')
          ? 'responses'
          : 'other';
      const record = recordRequest({
        api,
        method: request.method ?? 'GET',
        path,
        headers: request.headers,
        body,
        servedItems,
      });
      requests.push(record);
      if (api === 'other' || request.method !== 'POST') {
        sendError(response, {
          type: 'error',
          status: 404,
          message: `No route ${request.method} ${path}`,
          code: 'not_found',
        });
        return;
      }
      if (options.apiKey !== undefined && record.apiKey !== options.apiKey) {
        sendError(response, {
          type: 'error',
          status: 401,
          message: 'Incorrect API key provided.',
          code: 'invalid_api_key',
        });
        return;
      }
      const step = script.shift() ?? options.fallback ?? exhausted(requests.length);
      const reply = typeof step === 'function' ? step(record) : step;
      sequence += 1;
      if (reply.type === 'error') sendError(response, reply);
      else if (api === 'chat') sendChat(response, reply, record, sequence);
      else sendResponses(response, reply, record, sequence, servedItems);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...steps) => {
      script.push(...steps);
    },
    remaining: () => script.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function exhausted(count: number): ScriptedReply {
  return {
    type: 'error',
    status: 500,
    message: `Scripted server: the script is exhausted (request #${count} has no scripted reply).`,
    code: 'script_exhausted',
  };
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
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

function recordRequest(input: {
  api: RecordedRequest['api'];
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  servedItems: ReadonlyMap<string, NormalizedMessage>;
}): RecordedRequest {
  const body = asObject(input.body);
  const authorization = input.headers.authorization;
  const apiKey = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  const tools = asArray(body.tools).map(asObject);
  const toolNames = tools.map((tool) => String(asObject(tool.function).name ?? tool.name ?? ''));
  const messages =
    input.api === 'chat'
      ? normalizeChatMessages(body.messages)
      : normalizeResponsesInput(body.input, input.servedItems);
  return {
    api: input.api,
    method: input.method,
    path: input.path,
    headers: input.headers,
    body: input.body,
    model: typeof body.model === 'string' ? body.model : '',
    stream: body.stream === true,
    messages,
    toolNames,
    ...(apiKey === undefined ? {} : { apiKey }),
  };
}

function normalizeChatMessages(messages: unknown): NormalizedMessage[] {
  return asArray(messages).map((item) => {
    const message = asObject(item);
    const role = String(message.role ?? '');
    const toolCalls = asArray(message.tool_calls).map((call) => String(asObject(asObject(call).function).name));
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

function sendError(response: ServerResponse, reply: Extract<ScriptedReply, { type: 'error' }>): void {
  const message = reply.message ?? `Scripted HTTP ${reply.status} error.`;
  const type = reply.status === 429 ? 'rate_limit_error' : reply.status >= 500 ? 'server_error' : 'invalid_request_error';
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify({ error: { message, type, param: null, code: reply.code ?? null } }));
}

function sendJson(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

function sendEvents(response: ServerResponse, events: readonly unknown[], done: boolean): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  if (done) response.write('data: [DONE]\n\n');
  response.end();
}

function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** Splits text into word-sized deltas, as a streaming model would send them. */
function pieces(text: string): string[] {
  return text === '' ? [] : text.split(/(?<= )/);
}

function sendChat(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { type: 'error' }>,
  request: RecordedRequest,
  sequence: number,
): void {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const usageBody = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  const id = `chatcmpl-${sequence}`;
  const created = 1_700_000_000 + sequence;
  const calls = reply.type === 'tool-calls' ? reply.calls : [];
  const text = reply.text ?? '';
  const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
  const callId = (index: number) => `call_${sequence}_${index}`;
  if (!request.stream) {
    sendJson(response, {
      id,
      object: 'chat.completion',
      created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text === '' && calls.length > 0 ? null : text,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((call, index) => ({
                    id: callId(index),
                    type: 'function',
                    function: { name: call.name, arguments: argumentsText(call) },
                  })),
                }
              : {}),
          },
          finish_reason: finishReason,
        },
      ],
      usage: usageBody,
    });
    return;
  }
  const base = { id, object: 'chat.completion.chunk', created, model: request.model };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of pieces(text)) events.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: callId(index), type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    events.push(chunk({ tool_calls: [{ index, function: { arguments: argumentsText(call) } }] }));
  });
  events.push(chunk({}, finishReason));
  events.push({ ...base, choices: [], usage: usageBody });
  sendEvents(response, events, true);
}

function sendResponses(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { type: 'error' }>,
  request: RecordedRequest,
  sequence: number,
  servedItems: Map<string, NormalizedMessage>,
): void {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const calls = reply.type === 'tool-calls' ? reply.calls : [];
  const text = reply.text ?? '';
  const messageId = `msg_${sequence}`;
  const messageItem = {
    type: 'message',
    id: messageId,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  const callItems = calls.map((call, index) => ({
    type: 'function_call',
    id: `fc_${sequence}_${index}`,
    call_id: `call_${sequence}_${index}`,
    name: call.name,
    arguments: argumentsText(call),
    status: 'completed',
  }));
  const output = [...(text !== '' || calls.length === 0 ? [messageItem] : []), ...callItems];
  if (text !== '' || calls.length === 0) servedItems.set(messageId, { role: 'assistant', text });
  for (const item of callItems) servedItems.set(item.id, { role: 'assistant', text: '', toolCalls: [item.name] });
  const completed = {
    id: `resp_${sequence}`,
    object: 'response',
    created_at: 1_700_000_000 + sequence,
    status: 'completed',
    model: request.model,
    output,
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
    incomplete_details: null,
    error: null,
  };
  if (!request.stream) {
    sendJson(response, completed);
    return;
  }
  let number = 0;
  const event = (fields: JsonObject) => ({ ...fields, sequence_number: number++ });
  const events: unknown[] = [
    event({
      type: 'response.created',
      response: { ...completed, status: 'in_progress', output: [], usage: null },
    }),
  ];
  output.forEach((item, outputIndex) => {
    if (item.type === 'message') {
      events.push(
        event({
          type: 'response.output_item.added',
          output_index: outputIndex,
          item: { ...messageItem, status: 'in_progress', content: [] },
        }),
        event({
          type: 'response.content_part.added',
          item_id: messageId,
          output_index: outputIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      );
      for (const piece of pieces(text)) {
        events.push(
          event({
            type: 'response.output_text.delta',
            item_id: messageId,
            output_index: outputIndex,
            content_index: 0,
            delta: piece,
            logprobs: [],
          }),
        );
      }
      events.push(
        event({
          type: 'response.output_text.done',
          item_id: messageId,
          output_index: outputIndex,
          content_index: 0,
          text,
          logprobs: [],
        }),
      );
    } else {
      const args = 'arguments' in item ? item.arguments : '';
      events.push(
        event({
          type: 'response.output_item.added',
          output_index: outputIndex,
          item: { ...item, arguments: '', status: 'in_progress' },
        }),
        event({
          type: 'response.function_call_arguments.delta',
          item_id: item.id,
          output_index: outputIndex,
          delta: args,
        }),
        event({
          type: 'response.function_call_arguments.done',
          item_id: item.id,
          output_index: outputIndex,
          arguments: args,
        }),
      );
    }
    events.push(event({ type: 'response.output_item.done', output_index: outputIndex, item }));
  });
  events.push(event({ type: 'response.completed', response: completed }));
  sendEvents(response, events, false);
}
