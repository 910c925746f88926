/**
 * The scripted server's replies in the wire formats of the Chat Completions and Responses APIs (JSON and
 * server-sent events), in the shapes the AI SDK's OpenAI provider parses.
 */
import type { ServerResponse } from 'node:http';
import type { NormalizedMessage, RecordedRequest } from './recorded-request.js';
import type { ScriptedReply, ScriptedToolCall, ScriptedUsage } from './scripted-reply.js';

/** Usage of a reply that names none. */
export const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 10, outputTokens: 5 };

type JsonObject = Record<string, unknown>;

/** Sends an OpenAI-style error body with the reply's status. */
export function sendError(response: ServerResponse, reply: Extract<ScriptedReply, { type: 'error' }>): void {
  const message = reply.message ?? `Scripted HTTP ${reply.status} error.`;
  const type =
    reply.status === 429
      ? 'rate_limit_error'
      : reply.status >= 500
        ? 'server_error'
        : 'invalid_request_error';
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(JSON.stringify({ error: { message, type, param: null, code: reply.code ?? null } }));
}

/** Sends a JSON body with status 200. */
export function sendJson(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

/** Sends server-sent events (`data:` lines), optionally ending with `data: [DONE]`. */
export function sendEvents(response: ServerResponse, events: readonly unknown[], done: boolean): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  if (done) response.write('data: [DONE]\n\n');
  response.end();
}

/** A scripted call's arguments as the JSON text the wire carries. */
export function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** Splits text into word-sized deltas, as a streaming model would send them. */
export function pieces(text: string): string[] {
  return text === '' ? [] : text.split(/(?<= )/);
}

/** Sends a Chat Completions reply (a JSON completion, or chunks ending in `[DONE]` when streaming). */
export function sendChat(
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
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
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

/** Sends a Responses API reply (a JSON response, or events ending in `response.completed` when streaming). */
export function sendResponses(
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
  for (const item of callItems)
    servedItems.set(item.id, { role: 'assistant', text: '', toolCalls: [item.name] });
  const completed = {
    id: `resp_${sequence}`,
    object: 'response',
    created_at: 1_700_000_000 + sequence,
    status: 'completed',
    model: request.model,
    output,
    usage: {
      input_tokens: usage.inputTokens,
      input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
      output_tokens: usage.outputTokens,
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
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
