/**
 * What the scripted OpenAI-compatible server answers: a text reply, tool calls, or an HTTP error, per request.
 */
import type { RecordedRequest } from './recorded-request.js';

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
