/**
 * End-to-end: the real `@ai-sdk/openai` client over real HTTP against the scripted server on 127.0.0.1.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestClock } from '@attractor/engine/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAiSdkBackend, ModelCallError } from '../src/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../src/test/index.js';
import { createStageRequest, readTranscript } from './stage-request.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('createAiSdkBackend over Chat Completions (custom base URL)', () => {
  it('returns the plain answer as a SUCCESS with usage in the context updates', async () => {
    server = await startScriptedOpenAIServer({
      script: [{ type: 'text', text: 'The answer is 42', usage: { inputTokens: 12, outputTokens: 7 } }],
    });
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'test-key',
      defaultModel: 'gpt-test',
    });
    const stage = await createStageRequest({ prompt: 'What is the answer?' });

    const outcome = await backend.run(stage.request);

    expect(outcome).toMatchObject({ status: 'success' });
    expect(typeof outcome === 'object' && outcome.contextUpdates).toEqual({
      last_response: 'The answer is 42',
      'usage.work.input_tokens': 12,
      'usage.work.output_tokens': 7,
      'usage.work.cached_input_tokens': 0,
      'usage.work.reasoning_tokens': 0,
      'usage.work.total_tokens': 19,
      'usage.work.cost_usd': 'unknown',
    });
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.apiKey).toBe('test-key');
    expect(request.model).toBe('gpt-test');
    expect(request.messages.at(-1)).toEqual({ role: 'user', text: 'What is the answer?' });
    expect(request.toolNames).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'shell',
      'grep',
      'glob',
      'report_outcome',
    ]);
    expect(await readFile(join(stage.stageDir, 'response.md'), 'utf8')).toBe('The answer is 42');
    expect(stage.events).toContainEqual({ type: 'agent.text', text: 'The answer is 42', delta: false });
  });

  it('writes a file with write_file and reads it back with read_file in the workdir', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          type: 'tool-calls',
          calls: [
            { name: 'write_file', arguments: { file_path: 'src/hello.py', content: 'print("Hello")\n' } },
          ],
        },
        { type: 'tool-calls', calls: [{ name: 'read_file', arguments: { file_path: 'src/hello.py' } }] },
        { type: 'text', text: 'Created src/hello.py' },
      ],
    });
    const backend = createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'k', defaultModel: 'gpt-test' });
    const stage = await createStageRequest({ prompt: 'Create hello.py' });

    const outcome = await backend.run(stage.request);

    expect(outcome).toMatchObject({
      status: 'success',
      contextUpdates: { last_response: 'Created src/hello.py' },
    });
    expect(await readFile(join(stage.workdir, 'src/hello.py'), 'utf8')).toBe('print("Hello")\n');
    const toolResults = server.requests.map((request) => request.messages.at(-1));
    expect(toolResults[1]).toMatchObject({ role: 'tool', text: 'Wrote 15 bytes to src/hello.py' });
    expect(toolResults[2]).toMatchObject({ role: 'tool', text: '1 | print("Hello")' });
    const completed = stage.events.filter((event) => event.type === 'agent.tool_call.completed');
    expect(completed.map((event) => event.type === 'agent.tool_call.completed' && event.toolName)).toEqual([
      'write_file',
      'read_file',
    ]);
    const transcript = await readTranscript(stage.stageDir);
    expect(transcript.map((entry) => entry.type)).toEqual([
      'stage_started',
      'tool_call',
      'tool_result',
      'step',
      'tool_call',
      'tool_result',
      'step',
      'step',
      'stage_finished',
    ]);
  });

  it('refuses a path outside the workdir and tells the model so', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          type: 'tool-calls',
          calls: [{ name: 'write_file', arguments: { file_path: '../escaped.txt', content: 'x' } }],
        },
        { type: 'text', text: 'I could not write there.' },
      ],
    });
    const backend = createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'k', defaultModel: 'gpt-test' });
    const stage = await createStageRequest();

    const outcome = await backend.run(stage.request);

    expect(outcome).toMatchObject({ status: 'success' });
    const toolMessage = server.requests[1]!.messages.at(-1)!;
    expect(toolMessage.role).toBe('tool');
    expect(toolMessage.text).toContain('Tool error (write_file): Refused:');
    expect(toolMessage.text).toContain('is outside the working directory');
    await expect(readFile(join(stage.workdir, '..', 'escaped.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(stage.events).toContainEqual(
      expect.objectContaining({ type: 'agent.tool_call.completed', toolName: 'write_file', isError: true }),
    );
  });

  it('fails a 401 as terminal with a message naming OPENAI_API_KEY, the apiKey option and --base-url', async () => {
    server = await startScriptedOpenAIServer({ apiKey: 'right-key' });
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'wrong-key',
      defaultModel: 'gpt-test',
    });
    const stage = await createStageRequest();

    const error = await backend.run(stage.request).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(ModelCallError.isInstance(error)).toBe(true);
    const modelError = error as ModelCallError;
    expect(modelError.retryable).toBe(false);
    expect(modelError.statusCode).toBe(401);
    expect(modelError.failure).toBe('authentication');
    expect(modelError.message).toContain('Incorrect API key provided.');
    expect(modelError.message).toContain('OPENAI_API_KEY');
    expect(modelError.message).toContain('`apiKey` option');
    expect(modelError.message).toContain('--base-url');
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(await readTranscript(stage.stageDir))).not.toContain('wrong-key');
  });

  it('retries a 429 inside the backend on the injected clock and then succeeds', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'error', status: 429, message: 'Slow down' },
        { type: 'text', text: 'Done after waiting' },
      ],
    });
    const clock = createTestClock();
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'k',
      defaultModel: 'gpt-test',
      clock,
      random: () => 0,
    });
    const stage = await createStageRequest();

    const outcome = await backend.run(stage.request);

    expect(outcome).toMatchObject({
      status: 'success',
      contextUpdates: { last_response: 'Done after waiting' },
    });
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps).toEqual([500]);
    expect(stage.events).toContainEqual({
      type: 'stage.custom',
      name: 'llm.retry',
      data: expect.objectContaining({
        provider: 'openai',
        attempt: 1,
        maxAttempts: 6,
        delayMs: 500,
        statusCode: 429,
      }),
    });
  });

  it('gives up after the configured attempts with a retryable error', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'error', status: 429, message: 'Slow down' },
        { type: 'error', status: 429, message: 'Slow down' },
      ],
    });
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'k',
      defaultModel: 'gpt-test',
      clock: createTestClock(),
      retry: { maxAttempts: 2 },
    });
    const stage = await createStageRequest();

    const error = (await backend.run(stage.request).catch((thrown: unknown) => thrown)) as ModelCallError;

    expect(error.retryable).toBe(true);
    expect(error.failure).toBe('rate_limited');
    expect(error.message).toContain('Slow down');
    expect(server.requests).toHaveLength(2);
  });

  it('marks a 500 retryable and a 400 terminal', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'error', status: 500, message: 'boom' },
        { type: 'error', status: 400, message: 'bad model' },
      ],
    });
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'k',
      defaultModel: 'gpt-test',
      retry: { maxAttempts: 1 },
    });

    const first = (await backend
      .run((await createStageRequest()).request)
      .catch((e: unknown) => e)) as ModelCallError;
    const second = (await backend
      .run((await createStageRequest()).request)
      .catch((e: unknown) => e)) as ModelCallError;

    expect([first.retryable, first.failure]).toEqual([true, 'server_error']);
    expect([second.retryable, second.failure]).toEqual([false, 'bad_request']);
    expect(second.message).toContain('llm_model');
  });

  it('marks an unreachable server as a retryable network failure', async () => {
    server = await startScriptedOpenAIServer();
    const baseURL = server.baseURL;
    await server.close();
    server = undefined;
    const backend = createAiSdkBackend({ baseURL, apiKey: 'k', defaultModel: 'gpt-test' });

    const error = (await backend
      .run((await createStageRequest()).request)
      .catch((e: unknown) => e)) as ModelCallError;

    expect(ModelCallError.isInstance(error)).toBe(true);
    expect([error.retryable, error.failure]).toEqual([true, 'network']);
    expect(error.message).toContain('--base-url');
  });

  it.each([true, false])(
    'writes nothing to the console when the model call fails (streaming: %s)',
    async (streaming) => {
      server = await startScriptedOpenAIServer({ apiKey: 'right-key' });
      const backend = createAiSdkBackend({
        baseURL: server.baseURL,
        apiKey: 'wrong-key',
        defaultModel: 'gpt-test',
        streaming,
      });
      // Observed, not replaced: the AI SDK's default streamText onError console.errors the whole APICallError.
      const consoleError = vi.spyOn(console, 'error');
      try {
        const error = await backend
          .run((await createStageRequest()).request)
          .catch((thrown: unknown) => thrown);

        expect(ModelCallError.isInstance(error)).toBe(true);
        expect(consoleError).not.toHaveBeenCalled();
      } finally {
        consoleError.mockRestore();
      }
    },
  );

  it('sends the earlier turns of the thread again under full fidelity', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'text', text: 'Plan: write hello.py' },
        { type: 'text', text: 'Implemented' },
        { type: 'text', text: 'Fresh answer' },
      ],
    });
    const backend = createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'k', defaultModel: 'gpt-test' });
    const plan = await createStageRequest({
      node: { id: 'plan' },
      prompt: 'Make a plan',
      fidelity: 'full',
      threadKey: 'main',
    });
    const implement = await createStageRequest({
      logsRoot: plan.logsRoot,
      node: { id: 'implement' },
      prompt: 'Implement the plan',
      fidelity: 'full',
      threadKey: 'main',
    });
    const review = await createStageRequest({
      logsRoot: plan.logsRoot,
      node: { id: 'review' },
      prompt: 'Review',
      fidelity: 'compact',
      threadKey: 'main',
      preamble: 'Goal: hello world. Completed: plan, implement.',
    });

    await backend.run(plan.request);
    await backend.run(implement.request);
    await backend.run(review.request);

    const conversation = (index: number) =>
      server!.requests[index]!.messages.filter((message) => message.role !== 'system').map((m) => [
        m.role,
        m.text,
      ]);
    expect(conversation(1)).toEqual([
      ['user', 'Make a plan'],
      ['assistant', 'Plan: write hello.py'],
      ['user', 'Implement the plan'],
    ]);
    expect(conversation(2)).toEqual([['user', 'Goal: hello world. Completed: plan, implement.\n\nReview']]);
    expect(backend.history('main', plan.logsRoot)).toHaveLength(4);
  });
});

describe('createAiSdkBackend over the Responses API', () => {
  it('uses /responses with reasoning effort and continues a full-fidelity thread through stored items', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'tool-calls', calls: [{ name: 'glob', arguments: { pattern: '*.txt' } }] },
        { type: 'text', text: 'Found notes.txt' },
        { type: 'text', text: 'Second turn' },
      ],
    });
    const backend = createAiSdkBackend({
      baseURL: server.baseURL,
      openaiApi: 'responses',
      apiKey: 'k',
      defaultModel: 'gpt-5',
    });
    const first = await createStageRequest({
      node: { id: 'scan', attrs: { reasoning_effort: 'low' }, reasoningEffort: 'low' },
      fidelity: 'full',
      threadKey: 't',
    });
    await writeFile(join(first.workdir, 'notes.txt'), 'x');
    const second = await createStageRequest({
      logsRoot: first.logsRoot,
      node: { id: 'next' },
      fidelity: 'full',
      threadKey: 't',
      prompt: 'Go on',
    });

    await backend.run(first.request);
    await backend.run(second.request);

    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/responses',
      '/v1/responses',
      '/v1/responses',
    ]);
    expect(server.requests[0]!.body).toMatchObject({ reasoning: { effort: 'low' } });
    expect(server.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', text: 'notes.txt' });
    const roles = server.requests[2]!.messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
    expect(roles.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Do the work.'],
      ['assistant', ''],
      ['tool', 'notes.txt'],
      ['assistant', 'Found notes.txt'],
      ['user', 'Go on'],
    ]);
  });

  it('streams tool calls and text the way the SDK parses them', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          type: 'tool-calls',
          calls: [{ name: 'write_file', arguments: { file_path: 'a.txt', content: 'hi' } }],
        },
        { type: 'text', text: 'Done writing' },
        {
          type: 'tool-calls',
          calls: [{ name: 'write_file', arguments: { file_path: 'b.txt', content: 'yo' } }],
        },
        { type: 'text', text: 'Done again' },
      ],
    });
    const { createOpenAI } = await import('@ai-sdk/openai');
    const { streamText, stepCountIs, tool } = await import('ai');
    const { z } = await import('zod');
    const written: string[] = [];
    const tools = {
      write_file: tool({
        inputSchema: z.object({ file_path: z.string(), content: z.string() }),
        execute: async ({ file_path }) => {
          written.push(file_path);
          return 'ok';
        },
      }),
    };
    const openai = createOpenAI({ baseURL: server.baseURL, apiKey: 'k' });
    for (const model of [openai.chat('gpt-test'), openai.responses('gpt-test')]) {
      const result = streamText({ model, prompt: 'write', tools, stopWhen: stepCountIs(3), maxRetries: 0 });
      await result.consumeStream();
      expect(await result.text).toMatch(/^Done/);
    }
    expect(written).toEqual(['a.txt', 'b.txt']);
    expect(server.requests.map((request) => [request.api, request.stream])).toEqual([
      ['chat', true],
      ['chat', true],
      ['responses', true],
      ['responses', true],
    ]);
  });
});
