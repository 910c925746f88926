/**
 * The OpenAI Responses API (`POST /v1/responses`, streamed as SSE) for the scripted server: what Codex speaks to a
 * custom model provider with `wire_api = "responses"`.
 */
import type { ServerResponse } from 'node:http';
import { strictSchemaProblem } from '@attractor/graph';
import { type ScriptedTurn, type WireProtocol, writeEvent } from './scripted-server.js';

interface InputItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly output?: unknown;
}

function itemTexts(item: InputItem): string[] {
  const texts: string[] = [];
  if (typeof item.content === 'string') texts.push(item.content);
  if (Array.isArray(item.content)) {
    for (const part of item.content as { text?: unknown }[]) {
      if (typeof part.text === 'string') texts.push(part.text);
    }
  }
  if (typeof item.output === 'string') texts.push(item.output);
  return texts;
}

/** A model turn leaves one of these items in the next request's input. */
function isModelItem(item: InputItem): boolean {
  return (
    item.type === 'function_call' ||
    item.type === 'custom_tool_call' ||
    (item.type === 'message' && item.role === 'assistant')
  );
}

/** The OpenAI Responses protocol. */
export const openaiResponsesWire: WireProtocol = {
  isModelCall: (method, path) => method === 'POST' && path.startsWith('/v1/responses'),
  read(body) {
    const input = ((body as { input?: InputItem[] }).input ?? []) as InputItem[];
    return {
      texts: input.flatMap(itemTexts),
      turnsSinceMarker(marker) {
        let start = -1;
        input.forEach((item, index) => {
          if (item.role === 'user' && itemTexts(item).some((text) => text.includes(marker))) start = index;
        });
        return input.slice(start + 1).filter(isModelItem).length;
      },
    };
  },
  write(response: ServerResponse, turn: ScriptedTurn, { call, body }) {
    // Like OpenAI: a strict JSON Schema format whose schema strict mode does not take is refused.
    const format = (
      body as { text?: { format?: { type?: string; name?: string; strict?: boolean; schema?: unknown } } }
    ).text?.format;
    const problem =
      format?.type === 'json_schema' && format.strict === true
        ? strictSchemaProblem(format.schema)
        : undefined;
    if (problem !== undefined) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            message: `Invalid schema for response_format '${format?.name ?? 'response'}': ${problem}`,
            type: 'invalid_request_error',
            param: 'text.format.schema',
            code: 'invalid_json_schema',
          },
        }),
      );
      return;
    }
    if ('httpError' in turn) {
      response.writeHead(turn.httpError, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { message: turn.message, type: 'invalid_request_error', code: 'bad_request' },
        }),
      );
      return;
    }
    if ('hang' in turn) return;
    const id = `resp_${call}`;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: { type: string } & Record<string, unknown>) => writeEvent(response, data.type, data);
    send({ type: 'response.created', response: { id } });
    const item =
      'tool' in turn
        ? {
            type: 'function_call',
            id: `fc_${call}`,
            call_id: `call_${call}`,
            name: turn.tool,
            arguments: JSON.stringify(turn.input),
          }
        : {
            type: 'message',
            role: 'assistant',
            id: `msg_${call}`,
            content: [{ type: 'output_text', text: turn.text, annotations: [] }],
          };
    send({ type: 'response.output_item.added', output_index: 0, item });
    if (!('tool' in turn)) {
      send({
        type: 'response.output_text.delta',
        output_index: 0,
        content_index: 0,
        item_id: item.id,
        delta: turn.text,
      });
    }
    send({ type: 'response.output_item.done', output_index: 0, item });
    send({
      type: 'response.completed',
      response: {
        id,
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 120,
        },
      },
    });
    response.end();
  },
};
