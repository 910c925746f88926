/**
 * What the scripted OpenAI-compatible server answers: a text reply, tool calls, or an HTTP error, per request.
 */
import type { RecordedRequest } from './recorded-request.js';

/** Token counts a scripted reply reports. Default: 10 input, 5 output. */
export interface ScriptedUsage {
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  /** All output tokens, reasoning ones included. */
  readonly outputTokens: number;
  /** Input tokens read from the prompt cache. Default: 0. */
  readonly cachedInputTokens?: number;
  /** Reasoning tokens. Default: 0. */
  readonly reasoningTokens?: number;
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
   * An HTTP error with the called API's error body (OpenAI `{ error: { message, type, code } }`, Anthropic
   * `{ type: 'error', error: { type, message } }` with `overloaded_error` for 529, Gemini
   * `{ error: { code, message, status } }`), e.g. 429, 401, 500, 529. `message` defaults to a description of the
   * status; `headers` are sent as given (`retry-after`).
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
