import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { createSecretMasker } from '@attractor/engine';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createStageRequest, readTranscript } from '../test/stage-request.js';
import { createAiSdkBackend } from './create-ai-sdk-backend.js';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function text(value: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text: value }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

let callNumber = 0;
function toolCall(toolName: string, input: Record<string, unknown>): LanguageModelV3GenerateResult {
  callNumber += 1;
  return {
    content: [{ type: 'tool-call', toolCallId: `c${callNumber}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** A backend whose every model is the given mock (provider `mock`). */
function mockBackend(model: MockLanguageModelV3, options: Parameters<typeof createAiSdkBackend>[0] = {}) {
  return createAiSdkBackend({
    providers: { mock: () => model },
    defaultProvider: 'mock',
    defaultModel: 'm',
    // The mock answers doGenerate; streaming goes over HTTP in test/*-end-to-end.test.ts.
    streaming: false,
    ...options,
  });
}

/** The texts of the tool results in a prompt, in order. */
function toolResults(prompt: LanguageModelV3Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result' && (part.output.type === 'text' || part.output.type === 'error-text')
            ? [part.output.value]
            : [],
        )
      : [],
  );
}

/** The user texts of a prompt, in order. */
function userTexts(prompt: LanguageModelV3Prompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'user'
      ? message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []))
      : [],
  );
}

describe('createAiSdkBackend with the AI SDK mock model', () => {
  it('returns the report_outcome values as the Outcome and stops the loop', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCall('report_outcome', {
          outcome: 'FAIL',
          preferred_label: 'Fix',
          suggested_next_ids: ['implement'],
          context_updates: { 'review.verdict': 'missing tests' },
          notes: 'Tests are missing.',
          failure_reason: 'no tests',
        }),
        text('never sent'),
      ],
    });
    const stage = await createStageRequest({ node: { id: 'review' } });

    const outcome = await mockBackend(model).run(stage.request);

    expect(outcome).toMatchObject({
      status: 'fail',
      preferredLabel: 'Fix',
      suggestedNextIds: ['implement'],
      notes: 'Tests are missing.',
      failureReason: 'no tests',
      contextUpdates: { 'review.verdict': 'missing tests', 'usage.review.total_tokens': 15 },
    });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('injects steering messages as user messages before the next model call and keeps them in the history', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('glob', { pattern: '*' }), text('Adjusted')],
    });
    const stage = await createStageRequest({
      prompt: 'Build a Flask app',
      fidelity: 'full',
      threadKey: 'main',
      steering: [[], ['Actually, just create a /health endpoint']],
    });
    const backend = mockBackend(model);

    await backend.run(stage.request);

    expect(userTexts(model.doGenerateCalls[0]!.prompt)).toEqual(['Build a Flask app']);
    const second = model.doGenerateCalls[1]!.prompt;
    expect(userTexts(second)).toEqual(['Build a Flask app', 'Actually, just create a /health endpoint']);
    expect(second.at(-1)?.role).toBe('user');
    expect(second.at(-2)?.role).toBe('tool');
    expect(backend.history('main', stage.logsRoot).map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
    expect(stage.events).toContainEqual(
      expect.objectContaining({ type: 'stage.log', message: expect.stringContaining('/health endpoint') }),
    );
  });

  it('fails retryably when the turn limit is reached', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => toolCall('glob', { pattern: '*' }),
    });
    const stage = await createStageRequest();

    const outcome = await mockBackend(model, { maxTurns: 3 }).run(stage.request);

    expect(model.doGenerateCalls).toHaveLength(3);
    expect(outcome).toMatchObject({ status: 'fail' });
    expect(typeof outcome === 'object' && outcome.failureReason).toContain('turn limit (3 model calls)');
    expect(typeof outcome === 'object' && outcome.retryable).toBeUndefined();
  });

  it('warns the model once the last 10 tool calls repeat one pattern', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async (options) =>
        userTexts(options.prompt).some((text) => text.startsWith('Loop detected'))
          ? text('Changing approach')
          : toolCall('glob', { pattern: '*.ts' }),
    });
    const stage = await createStageRequest();

    const outcome = await mockBackend(model).run(stage.request);

    expect(outcome).toMatchObject({ status: 'success' });
    expect(model.doGenerateCalls).toHaveLength(11);
    expect(userTexts(model.doGenerateCalls[10]!.prompt).at(-1)).toBe(
      'Loop detected: the last 10 tool calls follow a repeating pattern. Try a different approach.',
    );
    expect(stage.events).toContainEqual(
      expect.objectContaining({
        type: 'stage.log',
        level: 'warn',
        message: expect.stringContaining('Loop detected'),
      }),
    );
  });

  it('offers no tools to a tools="none" stage and prepends the preamble to the prompt', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [text('Summary')] });
    const stage = await createStageRequest({
      node: { id: 'summarize', attrs: { tools: 'none' } },
      prompt: 'Summarize',
      preamble: 'Completed stages: plan (success).',
    });

    await mockBackend(model).run(stage.request);

    const call = model.doGenerateCalls[0]!;
    expect(call.tools ?? []).toEqual([]);
    expect(userTexts(call.prompt)).toEqual(['Completed stages: plan (success).\n\nSummarize']);
    const system = call.prompt[0];
    expect(system?.role === 'system' && system.content).toContain('this stage has no tools');
  });

  it('offers only the listed tools plus report_outcome', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [text('ok')] });
    const stage = await createStageRequest({ node: { id: 'r', attrs: { tools: 'read_file,grep' } } });

    await mockBackend(model).run(stage.request);

    expect(model.doGenerateCalls[0]!.tools?.map((tool) => tool.name)).toEqual([
      'read_file',
      'grep',
      'report_outcome',
    ]);
  });

  it('maps an explicit reasoning_effort to the provider option and sends none otherwise to other servers', async () => {
    const model = new MockLanguageModelV3({ doGenerate: async () => text('ok') });
    const backend = createAiSdkBackend({
      providers: { openai: () => model },
      defaultModel: 'gpt-5',
      streaming: false,
    });
    const explicit = await createStageRequest({
      node: { id: 'a', attrs: { reasoning_effort: 'low' }, reasoningEffort: 'low' },
    });
    const implicit = await createStageRequest({ node: { id: 'b' } });

    await backend.run(explicit.request);
    await backend.run(implicit.request);

    expect(model.doGenerateCalls[0]!.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });
    expect(model.doGenerateCalls[1]!.providerOptions).toBeUndefined();
  });

  it('asks an output_schema that OpenAI strict mode refuses in non-strict mode, a strict one as it is', async () => {
    const model = new MockLanguageModelV3({ doGenerate: async () => text('{"verdict": "approve"}') });
    const backend = createAiSdkBackend({
      providers: { openai: () => model },
      defaultModel: 'gpt-5',
      streaming: false,
    });
    const open = await createStageRequest({
      node: { id: 'a', attrs: { reasoning_effort: 'low' }, reasoningEffort: 'low' },
    });
    const closed = await createStageRequest({ node: { id: 'b' } });
    const properties = { verdict: { type: 'string' } };

    await backend.run({
      ...open.request,
      outputSchema: { type: 'object', properties, required: ['verdict'], additionalProperties: true },
    });
    await backend.run({
      ...closed.request,
      outputSchema: { type: 'object', properties, required: ['verdict'], additionalProperties: false },
    });

    expect(model.doGenerateCalls[0]!.providerOptions).toEqual({
      openai: { reasoningEffort: 'low', strictJsonSchema: false },
    });
    expect(model.doGenerateCalls[1]!.providerOptions).toBeUndefined();
    expect(model.doGenerateCalls[1]!.responseFormat).toMatchObject({ type: 'json', schema: { properties } });
  });

  it('shows the model a truncated read of a big file while the event carries the full output', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('read_file', { file_path: 'big.txt' }), text('Read it')],
    });
    const stage = await createStageRequest();
    await writeFile(join(stage.workdir, 'big.txt'), 'x'.repeat(100_000));

    await mockBackend(model).run(stage.request);

    const completed = stage.events.find((event) => event.type === 'agent.tool_call.completed');
    expect(completed?.type === 'agent.tool_call.completed' && completed.output.length).toBe(
      100_000 + '1 | '.length,
    );
    const seen = toolResults(model.doGenerateCalls[1]!.prompt)[0]!;
    expect(seen).toContain('[WARNING: Tool output was truncated.');
    expect(seen.length).toBeLessThan(50_500);
    const transcript = await readTranscript(stage.stageDir);
    const result = transcript.find((entry) => entry.type === 'tool_result')!;
    expect((result.output as string).length).toBe(100_004);
    expect(result.truncatedOutput).toBe(seen);
  });

  it('runs shell commands without secret variables and times them out', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
        toolCall('shell', { command: 'echo "key=${OPENAI_API_KEY:-absent} path=${PATH:+set}"' }),
        toolCall('shell', { command: 'sleep 30', timeout_ms: 1000 }),
        text('done'),
      ],
    });
    const stage = await createStageRequest();
    const backend = mockBackend(model, {
      env: { PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-secret' },
    });

    await backend.run(stage.request);

    const results = toolResults(model.doGenerateCalls[2]!.prompt);
    expect(results[0]).toMatch(/^key=absent path=set\n\n\[exit code 0; \d+ ms\]$/);
    expect(results[1]).toContain('[ERROR: Command timed out after 1000ms. Partial output is shown above.');
  });

  it('runs tool_hooks.pre and .post around calls; a failing pre-hook skips the call', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCall('write_file', { file_path: 'blocked.txt', content: 'no' }),
        toolCall('read_file', { file_path: 'allowed.txt' }),
        text('done'),
      ],
    });
    const stage = await createStageRequest({
      node: {
        id: 'work',
        attrs: {
          'tool_hooks.pre':
            'test "$ATTRACTOR_TOOL_NAME" != write_file || { echo "writes are frozen"; exit 3; }',
        },
      },
      graphSettings: {
        toolHooksPost: 'cat >> "$ATTRACTOR_STAGE_DIR/post.log"; echo >> "$ATTRACTOR_STAGE_DIR/post.log"',
      },
    });
    await writeFile(join(stage.workdir, 'allowed.txt'), 'hello\n');

    await mockBackend(model, { env: { PATH: '/usr/bin:/bin' } }).run(stage.request);

    const results = toolResults(model.doGenerateCalls[2]!.prompt);
    expect(results[0]).toBe(
      'Tool call skipped by pre-hook (tool_hooks.pre exited with 3): writes are frozen',
    );
    expect(results[1]).toBe('1 | hello');
    await expect(readFile(join(stage.workdir, 'blocked.txt'))).rejects.toThrow(/ENOENT/);
    const posts = (await readFile(join(stage.stageDir, 'post.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(posts.map((post) => [post.phase, post.tool_name, post.is_error])).toEqual([
      ['post', 'write_file', true],
      ['post', 'read_file', false],
    ]);
    expect(posts[1]).toMatchObject({
      node_id: 'work',
      arguments: { file_path: 'allowed.txt' },
      output: '1 | hello',
    });
    const transcript = await readTranscript(stage.stageDir);
    expect(transcript.filter((entry) => entry.type === 'hook.pre').map((entry) => entry.skipped)).toEqual([
      true,
      false,
    ]);
    expect(transcript.filter((entry) => entry.type === 'hook.post')).toHaveLength(2);
    expect(stage.events).toContainEqual(
      expect.objectContaining({
        type: 'stage.custom',
        name: 'tool_hook.pre',
        data: expect.objectContaining({ skipped: true }),
      }),
    );
  });

  it('forwards the provider call warnings as stage log events', async () => {
    const previous = (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS;
    (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          ...text('ok'),
          warnings: [{ type: 'unsupported', feature: 'reasoningEffort', details: 'not a reasoning model' }],
        },
      ],
    });
    const stage = await createStageRequest();

    await mockBackend(model)
      .run(stage.request)
      .finally(() => {
        (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = previous;
      });

    expect(stage.events).toContainEqual({
      type: 'stage.log',
      level: 'warn',
      message: 'AI SDK warning (m): reasoningEffort unsupported: not a reasoning model',
    });
  });

  it('warns once when a step uses more than 80% of the context window', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [toolCall('glob', { pattern: '*' }), text('ok')] });
    const stage = await createStageRequest();

    await mockBackend(model, { contextWindowTokens: 12 }).run(stage.request);

    const warnings = stage.events.filter(
      (event) => event.type === 'stage.log' && event.message.startsWith('Context usage'),
    );
    expect(warnings).toEqual([
      {
        type: 'stage.log',
        level: 'warn',
        message: 'Context usage at ~83% of the context window (10 of 12 tokens)',
      },
    ]);
  });

  it('throws a terminal BackendConfigurationError for a node without a model', async () => {
    const stage = await createStageRequest({ node: { id: 'plan' } });

    const error = await createAiSdkBackend({})
      .run(stage.request)
      .catch((thrown: unknown) => thrown);

    expect(BackendConfigurationError.isInstance(error)).toBe(true);
    expect((error as BackendConfigurationError).retryable).toBe(false);
  });

  it('rejects when the stage is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('node timeout'));
    const model = new MockLanguageModelV3({ doGenerate: [text('late')] });
    const stage = await createStageRequest({ abortSignal: controller.signal });

    await expect(mockBackend(model).run(stage.request)).rejects.toThrow();
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('redacts the API key from the transcript', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [toolCall('write_file', { file_path: 'k.txt', content: 'key sk-live-123456' }), text('ok')],
    });
    const stage = await createStageRequest();

    await mockBackend(model, { apiKey: 'sk-live-123456' }).run(stage.request);

    const transcript = await readFile(join(stage.stageDir, 'transcript.jsonl'), 'utf8');
    expect(transcript).not.toContain('sk-live-123456');
    expect(transcript).toContain('[REDACTED]');
  });

  it("masks the run's secrets (--secret names, secret-named variables) in prompt.md and the transcript", async () => {
    const secret = 'db-pass-987654';
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCall('write_file', { file_path: 'db.txt', content: `password ${secret}` }),
        text('ok'),
      ],
    });
    const stage = await createStageRequest({ prompt: `Connect with ${secret} and store it.` });
    const request = { ...stage.request, secrets: createSecretMasker({ values: [secret] }) };

    await mockBackend(model).run(request);

    const prompt = await readFile(join(stage.stageDir, 'prompt.md'), 'utf8');
    const transcript = await readFile(join(stage.stageDir, 'transcript.jsonl'), 'utf8');
    expect(prompt).toContain('Connect with [REDACTED] and store it.');
    expect(transcript).toContain('password [REDACTED]');
    expect(`${prompt}${transcript}`).not.toContain(secret);
    // The model and the tool still get the real value: only what is written down is masked.
    expect(await readFile(join(stage.workdir, 'db.txt'), 'utf8')).toBe(`password ${secret}`);
  });
});
