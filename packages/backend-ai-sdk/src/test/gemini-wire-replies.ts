/**
 * The scripted server's replies in the wire format of the Gemini API (`POST /v1beta/models/{model}:generateContent`
 * and `:streamGenerateContent?alt=sse`): candidates with text and `functionCall` parts and `usageMetadata`;
 * errors as `{ error: { code, message, status } }`.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_USAGE, pieces, sendEvents, sendJson } from './openai-wire-replies.js';
import type { RecordedRequest } from './recorded-request.js';
import type { ScriptedReply } from './scripted-reply.js';

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Sends a Gemini error body with the reply's status. */
export function sendGeminiError(
  response: ServerResponse,
  reply: Extract<ScriptedReply, { type: 'error' }>,
): void {
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(
    JSON.stringify({
      error: {
        code: reply.status,
        message: reply.message ?? `Scripted HTTP ${reply.status} error.`,
        status: STATUS_NAMES[reply.status] ?? 'UNKNOWN',
      },
    }),
  );
}

/** Sends a generateContent reply (a JSON response, or `data:` chunks when streaming). */
export function sendGemini(
  response: ServerResponse,
  reply: Exclude<ScriptedReply, { type: 'error' }>,
  request: RecordedRequest,
): void {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const reasoning = usage.reasoningTokens ?? 0;
  const usageMetadata = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - reasoning,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens === undefined ? {} : { cachedContentTokenCount: usage.cachedInputTokens }),
    ...(reasoning === 0 ? {} : { thoughtsTokenCount: reasoning }),
  };
  const calls = reply.type === 'tool-calls' ? reply.calls : [];
  const text = reply.text ?? '';
  // Gemini 3 models sign their function calls; a client must send the signature back with the call.
  const callParts = calls.map((call, index) => ({
    thoughtSignature: `sig-${index}`,
    functionCall: {
      name: call.name,
      args: typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments,
    },
  }));
  const candidate = (parts: readonly unknown[], finish: boolean) => ({
    content: { role: 'model', parts },
    index: 0,
    ...(finish ? { finishReason: 'STOP' } : {}),
  });
  if (!request.stream) {
    const parts = [...(text !== '' || calls.length === 0 ? [{ text }] : []), ...callParts];
    sendJson(response, { candidates: [candidate(parts, true)], usageMetadata, modelVersion: request.model });
    return;
  }
  const chunks: unknown[] = pieces(text).map((piece) => ({
    candidates: [candidate([{ text: piece }], false)],
    modelVersion: request.model,
  }));
  chunks.push({ candidates: [candidate(callParts, true)], usageMetadata, modelVersion: request.model });
  sendEvents(response, chunks, false);
}
