/**
 * The Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`) for the scripted server: what Gemini
 * CLI speaks to `GOOGLE_GEMINI_BASE_URL`.
 */
import type { ServerResponse } from 'node:http';
import { type ScriptedTurn, type WireProtocol, writeEvent } from './scripted-server.js';

interface Part {
  readonly text?: string;
  readonly functionResponse?: { readonly response?: unknown };
}
interface Content {
  readonly role?: string;
  readonly parts?: readonly Part[];
}

function contentTexts(content: Content): string[] {
  return (content.parts ?? []).flatMap((part) => [
    ...(typeof part.text === 'string' ? [part.text] : []),
    ...(part.functionResponse === undefined ? [] : [JSON.stringify(part.functionResponse.response)]),
  ]);
}

/** The Gemini generateContent protocol. */
export const geminiWire: WireProtocol = {
  isModelCall: (method, path) => method === 'POST' && /:(stream)?[gG]enerateContent/.test(path),
  read(body) {
    const contents = ((body as { contents?: Content[] }).contents ?? []) as Content[];
    return {
      texts: contents.flatMap(contentTexts),
      turnsSinceMarker(marker) {
        let start = -1;
        contents.forEach((content, index) => {
          if (content.role === 'user' && contentTexts(content).some((text) => text.includes(marker)))
            start = index;
        });
        return contents.slice(start + 1).filter((content) => content.role === 'model').length;
      },
    };
  },
  write(response: ServerResponse, turn: ScriptedTurn) {
    if ('httpError' in turn) {
      response.writeHead(turn.httpError, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: { code: turn.httpError, message: turn.message, status: 'INVALID_ARGUMENT' },
        }),
      );
      return;
    }
    if ('hang' in turn) return;
    const parts =
      'tool' in turn
        ? [
            ...(turn.text === undefined ? [] : [{ text: turn.text }]),
            { functionCall: { name: turn.tool, args: turn.input } },
          ]
        : [{ text: turn.text }];
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writeEvent(response, undefined, {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: 'gemini-2.5-pro',
    });
    response.end();
  },
};
