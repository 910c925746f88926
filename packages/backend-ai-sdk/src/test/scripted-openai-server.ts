/**
 * A scripted LLM HTTP server for tests: a real `node:http` server on 127.0.0.1 that speaks OpenAI's Chat
 * Completions API (`POST /v1/chat/completions`) and Responses API (`POST /v1/responses`), Anthropic's Messages
 * API (`POST /v1/messages`) and Gemini's `POST /v1beta/models/{model}:generateContent` /
 * `:streamGenerateContent`, streaming and not, answers each model request with the next step of a script, and
 * records every request. Like OpenAI, it refuses (400) a strict JSON Schema response format whose schema strict mode
 * does not take (an open object, an optional property). The only fake in our end-to-end tests is the LLM (CONTRIBUTING.md "Writing tests");
 * the real `@ai-sdk/*` clients talk to it over HTTP.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strictSchemaProblem } from '@attractor/graph';
import { sendAnthropic, sendAnthropicError } from './anthropic-wire-replies.js';
import { sendGemini, sendGeminiError } from './gemini-wire-replies.js';
import { sendChat, sendError, sendResponses } from './openai-wire-replies.js';
import {
  type NormalizedMessage,
  type RecordedRequest,
  recordRequest,
  type ScriptedApi,
} from './recorded-request.js';
import type { ScriptedReply, ScriptedStep } from './scripted-reply.js';

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
  /** The server's root, e.g. `http://127.0.0.1:41234`: the value for `ANTHROPIC_BASE_URL`. */
  readonly rootURL: string;
  /** The base URL of the Gemini API, e.g. `http://127.0.0.1:41234/v1beta` (`GOOGLE_GENERATIVE_AI_BASE_URL`). */
  readonly googleBaseURL: string;
  /** Every request received, in order (model requests and others). */
  readonly requests: readonly RecordedRequest[];
  /** Appends steps to the script. */
  enqueue(...steps: readonly ScriptedStep[]): void;
  /** How many scripted steps are still unused. */
  remaining(): number;
  /** Stops the server and closes open connections. */
  close(): Promise<void>;
}

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
      const route = path.split('?')[0] ?? '';
      const api: ScriptedApi = route.endsWith('/chat/completions')
        ? 'chat'
        : route.endsWith('/responses')
          ? 'responses'
          : route.endsWith('/messages')
            ? 'anthropic'
            : /:(generateContent|streamGenerateContent)$/.test(route)
              ? 'gemini'
              : 'other';
      const sendFailure = (reply: Extract<ScriptedReply, { type: 'error' }>) => {
        if (api === 'anthropic') sendAnthropicError(response, reply);
        else if (api === 'gemini') sendGeminiError(response, reply);
        else sendError(response, reply);
      };
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
        sendFailure({
          type: 'error',
          status: 401,
          message: api === 'anthropic' ? 'invalid x-api-key' : 'Incorrect API key provided.',
          code: 'invalid_api_key',
        });
        return;
      }
      const strictProblem = api === 'chat' || api === 'responses' ? strictFormatProblem(body) : undefined;
      if (strictProblem !== undefined) {
        sendError(response, { type: 'error', status: 400, message: strictProblem });
        return;
      }
      const step = script.shift() ?? options.fallback ?? exhausted(requests.length);
      const reply = typeof step === 'function' ? step(record) : step;
      sequence += 1;
      if (reply.type === 'error') sendFailure(reply);
      else if (api === 'chat') sendChat(response, reply, record, sequence);
      else if (api === 'anthropic') sendAnthropic(response, reply, record, sequence);
      else if (api === 'gemini') sendGemini(response, reply, record);
      else sendResponses(response, reply, record, sequence, servedItems);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    rootURL: `http://127.0.0.1:${port}`,
    googleBaseURL: `http://127.0.0.1:${port}/v1beta`,
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

/**
 * OpenAI's answer to a strict JSON Schema response format (Chat Completions `response_format.json_schema`, Responses
 * `text.format`) whose schema strict mode does not take ({@link strictSchemaProblem}), or `undefined`.
 */
function strictFormatProblem(body: unknown): string | undefined {
  const request = (body ?? {}) as {
    response_format?: { type?: string; json_schema?: { name?: string; strict?: boolean; schema?: unknown } };
    text?: { format?: { type?: string; name?: string; strict?: boolean; schema?: unknown } };
  };
  const format =
    request.response_format?.type === 'json_schema'
      ? request.response_format.json_schema
      : request.text?.format?.type === 'json_schema'
        ? request.text.format
        : undefined;
  if (format?.strict !== true) return undefined;
  const problem = strictSchemaProblem(format.schema);
  return problem === undefined
    ? undefined
    : `Invalid schema for response_format '${format.name ?? 'response'}': ${problem}`;
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
