/**
 * The Anthropic Messages API (`POST /v1/messages`, streamed as SSE) for the scripted server: what Claude Code
 * speaks to `ANTHROPIC_BASE_URL`.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedTurn, type WireProtocol, writeEvent } from './scripted-server.js';

interface Block {
  readonly type: string;
  readonly text?: string;
  readonly content?: unknown;
}
interface Message {
  readonly role: string;
  readonly content: string | readonly Block[];
}

function blockTexts(content: Message['content']): string[] {
  if (typeof content === 'string') return [content];
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block.text === 'string') texts.push(block.text);
    if (block.type === 'tool_result') {
      if (typeof block.content === 'string') texts.push(block.content);
      else if (Array.isArray(block.content)) texts.push(...blockTexts(block.content as Block[]));
    }
  }
  return texts;
}

/** The Anthropic Messages protocol. */
export const anthropicWire: WireProtocol = {
  isModelCall: (method, path) =>
    method === 'POST' && path.startsWith('/v1/messages') && !path.includes('count_tokens'),
  read(body) {
    const messages = ((body as { messages?: Message[] }).messages ?? []) as Message[];
    return {
      texts: messages.flatMap((message) => blockTexts(message.content)),
      turnsSinceMarker(marker) {
        let start = -1;
        messages.forEach((message, index) => {
          if (message.role === 'user' && blockTexts(message.content).some((text) => text.includes(marker))) {
            start = index;
          }
        });
        return messages.slice(start + 1).filter((message) => message.role === 'assistant').length;
      },
    };
  },
  write(response: ServerResponse, turn: ScriptedTurn, { call, body }) {
    if ('httpError' in turn) {
      response.writeHead(turn.httpError, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: turn.message } }),
      );
      return;
    }
    if ('hang' in turn) return;
    const model = (body as { model?: string }).model ?? 'claude-test';
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writeEvent(response, 'message_start', {
      type: 'message_start',
      message: {
        id: `msg_${call}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    });
    let index = 0;
    const text = 'tool' in turn ? turn.text : turn.text;
    if (text !== undefined) {
      writeEvent(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      writeEvent(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text },
      });
      writeEvent(response, 'content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    }
    if ('tool' in turn) {
      writeEvent(response, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: `toolu_${call}`, name: turn.tool, input: {} },
      });
      writeEvent(response, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(turn.input) },
      });
      writeEvent(response, 'content_block_stop', { type: 'content_block_stop', index });
    }
    writeEvent(response, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 20 },
    });
    writeEvent(response, 'message_stop', { type: 'message_stop' });
    response.end();
  },
};
