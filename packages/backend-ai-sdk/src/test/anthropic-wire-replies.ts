/**
 * The scripted server's replies in the wire format of Anthropic's Messages API (`POST /v1/messages`): a JSON
 * message, or the server-sent events `message_start`, `content_block_*`, `message_delta`, `message_stop` when
 * streaming; errors as `{ type: 'error', error: { type, message } }` (529 is `overloaded_error`).
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_USAGE, pieces, sendJson } from './openai-wire-replies.js';
import type { RecordedRequest } from './recorded-request.js';
import type { ScriptedReply } from './scripted-reply.js';

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/** Sends an Anthropic error body with the reply's status. */
export function sendAnthropicError(
  response: ServerResponse,
  reply: Extract<ScriptedReply, { type: 'error' }>,
): void {
  const type = ERROR_TYPES[reply.status] ?? (reply.status >= 500 ? 'api_error' : 'invalid_request_error');
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(
    JSON.stringify({
      type: 'error',
      error: {
        type,
        message:
          reply.message ?? (reply.status === 529 ? 'Overloaded' : `Scripted HTTP ${reply.status} error.`),
      },
    }),
  );
}

function sendNamedEvents(response: ServerResponse, events: readonly Record<string, unknown>[]): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events)
    response.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  response.end();
}

/** Sends a Messages API reply (a JSON message, or its server-sent events when streaming). */
export function sendAnthropic(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { type: 'error' }>,
  request: RecordedRequest,
  sequence: number,
): void {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const cached = usage.cachedInputTokens ?? 0;
  // Anthropic's input_tokens excludes the tokens read from the cache.
  const usageBody = {
    input_tokens: usage.inputTokens - cached,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
  const calls = reply.type === 'tool-calls' ? reply.calls : [];
  const text = reply.text ?? '';
  const stopReason = calls.length > 0 ? 'tool_use' : 'end_turn';
  const toolUse = calls.map((call, index) => ({
    type: 'tool_use',
    id: `toolu_${sequence}_${index}`,
    name: call.name,
    input: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments,
  }));
  const content = [...(text !== '' || calls.length === 0 ? [{ type: 'text', text }] : []), ...toolUse];
  const message = {
    id: `msg_${sequence}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: usageBody,
  };
  if (!request.stream) {
    sendJson(response, message);
    return;
  }
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: { ...message, content: [], stop_reason: null, usage: { ...usageBody, output_tokens: 1 } },
    },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(text)) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else if ('name' in block) {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.outputTokens },
  });
  events.push({ type: 'message_stop' });
  sendNamedEvents(response, events);
}
