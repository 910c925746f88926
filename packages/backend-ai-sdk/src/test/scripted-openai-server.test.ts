import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from './scripted-openai-server.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown, apiKey = 'k'): Promise<Response> {
  return fetch(`${server!.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });
}

describe('startScriptedOpenAIServer', () => {
  it('answers Chat Completions with scripted text and usage, and records the request', async () => {
    server = await startScriptedOpenAIServer({
      script: [{ type: 'text', text: 'Hi there', usage: { inputTokens: 3, outputTokens: 2 } }],
    });

    const response = await post('/chat/completions', {
      model: 'm',
      messages: [{ role: 'user', content: 'Hello' }],
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [{ message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(server.requests[0]).toMatchObject({
      api: 'chat',
      path: '/v1/chat/completions',
      model: 'm',
      stream: false,
      apiKey: 'k',
      messages: [{ role: 'user', text: 'Hello' }],
    });
  });

  it('streams Responses API events ending in response.completed', async () => {
    server = await startScriptedOpenAIServer({
      script: [{ type: 'tool-calls', calls: [{ name: 'glob', arguments: { pattern: '*' } }] }],
    });

    const response = await post('/responses', {
      model: 'm',
      input: 'go',
      stream: true,
      tools: [{ type: 'function', name: 'glob' }],
    });
    const events = (await response.text())
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice('data: '.length)) as { type: string; sequence_number: number });

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(server.requests[0]).toMatchObject({ api: 'responses', stream: true, toolNames: ['glob'] });
  });

  it('replies with scripted HTTP errors, a function step, and a 500 once the script is exhausted', async () => {
    server = await startScriptedOpenAIServer({
      script: [{ type: 'error', status: 429, message: 'Slow down', headers: { 'retry-after': '1' } }],
    });
    server.enqueue((request) => ({ type: 'text', text: `model ${request.model}` }));
    expect(server.remaining()).toBe(2);

    const limited = await post('/chat/completions', { model: 'a', messages: [] });
    const computed = await post('/chat/completions', { model: 'b', messages: [] });
    const exhausted = await post('/chat/completions', { model: 'c', messages: [] });

    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({
      error: { message: 'Slow down', type: 'rate_limit_error', param: null, code: null },
    });
    expect(
      ((await computed.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message
        .content,
    ).toBe('model b');
    expect(exhausted.status).toBe(500);
    expect(JSON.stringify(await exhausted.json())).toContain('the script is exhausted (request #3');
    expect(server.remaining()).toBe(0);
  });

  it('rejects a wrong API key with 401 without consuming a step, and unknown routes with 404', async () => {
    server = await startScriptedOpenAIServer({ apiKey: 'right', script: [{ type: 'text', text: 'ok' }] });

    const wrong = await post('/chat/completions', { model: 'm', messages: [] }, 'wrong');
    const unknown = await post('/embeddings', { model: 'm' }, 'right');

    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(unknown.status).toBe(404);
    expect(server.remaining()).toBe(1);
    expect(server.requests.map((request) => request.api)).toEqual(['chat', 'other']);
  });
});
