/**
 * Every built-in provider end to end: the real `@ai-sdk/openai` (Responses and Chat Completions),
 * `@ai-sdk/anthropic` and `@ai-sdk/google` clients, configured from the environment variables a user sets, talk
 * over HTTP to the scripted server speaking each provider's wire protocol, streaming and not, inside real
 * `runPipeline` runs with the built-in handlers.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PipelineEvent, resumePipeline } from '@attractor/engine';
import { createTestClock, graphFrom, runDot as runEngineDot, tempDir } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import { type AiSdkBackendOptions, createAiSdkBackend, ModelCallError } from '../src/index.js';
import { type ScriptedOpenAIServer, startScriptedLlmServer } from '../src/test/index.js';
import { createStageRequest } from './stage-request.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ProviderCase {
  readonly name: string;
  /** The model a stage names; the provider follows from its prefix or from `llmProvider`. */
  readonly model: string;
  readonly llmProvider?: string;
  /** The environment a user sets for this provider. */
  readonly env: (server: ScriptedOpenAIServer) => Record<string, string>;
  readonly options?: Partial<AiSdkBackendOptions>;
  /** The path of a model request. */
  readonly path: RegExp;
  /** The variable a 401 message names. */
  readonly keyVariable: string;
  /** The provider name messages use. */
  readonly label: string;
  /** Whether the wire format reports reasoning tokens apart (Anthropic's counts them in output_tokens only). */
  readonly reportsReasoning: boolean;
}

const PROVIDERS: readonly ProviderCase[] = [
  {
    name: 'openai (Responses API)',
    model: 'gpt-5.4',
    env: (s) => ({ OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: s.baseURL }),
    options: { openaiApi: 'responses' },
    path: /^\/v1\/responses$/,
    keyVariable: 'OPENAI_API_KEY',
    label: 'openai',
    reportsReasoning: true,
  },
  {
    name: 'openai-compatible (Chat Completions)',
    model: 'gpt-5.4',
    env: (s) => ({ OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: s.baseURL }),
    path: /^\/v1\/chat\/completions$/,
    keyVariable: 'OPENAI_API_KEY',
    label: 'openai',
    reportsReasoning: true,
  },
  {
    name: 'anthropic',
    model: 'claude-sonnet-4-6',
    env: (s) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: s.rootURL }),
    path: /^\/v1\/messages$/,
    keyVariable: 'ANTHROPIC_API_KEY',
    label: 'anthropic',
    reportsReasoning: false,
  },
  {
    name: 'gemini',
    model: 'gemini-3-flash-preview',
    llmProvider: 'gemini',
    env: (s) => ({ GEMINI_API_KEY: 'gemini-test-key', GOOGLE_GENERATIVE_AI_BASE_URL: s.googleBaseURL }),
    path: /^\/v1beta\/models\/gemini-3-flash-preview:(generateContent|streamGenerateContent\?alt=sse)$/,
    keyVariable: 'GEMINI_API_KEY',
    label: 'gemini',
    reportsReasoning: true,
  },
];

function nodeAttributes(provider: ProviderCase): string {
  return `llm_model="${provider.model}"${provider.llmProvider === undefined ? '' : `, llm_provider="${provider.llmProvider}"`}`;
}

async function runDot(options: {
  readonly dot: string;
  readonly backend: AiSdkBackendOptions;
  readonly clock?: ReturnType<typeof createTestClock>;
  readonly maxBudgetUsd?: number;
}) {
  const workdir = join(tempDir('backend-providers-'), 'work');
  await mkdir(workdir);
  const graph = graphFrom(options.dot, 'pipeline.dot');
  const clock = options.clock ?? createTestClock();
  const backend = createAiSdkBackend({ clock, random: () => 0, ...options.backend });
  const run = await runEngineDot(graph, {
    registry: createDefaultRegistry(),
    logsRoot: join(workdir, '..', 'run'),
    workdir,
    clock,
    backend,
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
  });
  return { ...run, backend, clock, graph };
}

async function readStatus(logsRoot: string, node: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(logsRoot, node, 'status.json'), 'utf8')) as Record<string, unknown>;
}

for (const provider of PROVIDERS) {
  describe(`${provider.name} end to end`, () => {
    for (const streaming of [true, false]) {
      it(`writes a file in the workdir through a tool-call round trip (${streaming ? 'streaming' : 'not streaming'})`, async () => {
        server = await startScriptedLlmServer({
          script: [
            {
              type: 'tool-calls',
              calls: [
                { name: 'write_file', arguments: { file_path: 'notes/hello.txt', content: 'Hello\n' } },
              ],
            },
            { type: 'text', text: 'Wrote the greeting file.' },
          ],
        });
        const stage = await createStageRequest({
          node: {
            id: 'work',
            llmModel: provider.model,
            ...(provider.llmProvider === undefined ? {} : { llmProvider: provider.llmProvider }),
          },
          prompt: 'Write notes/hello.txt',
        });
        const backend = createAiSdkBackend({ env: provider.env(server), streaming, ...provider.options });

        const outcome = await backend.run(stage.request);

        expect(outcome).toMatchObject({
          status: 'success',
          contextUpdates: { last_response: 'Wrote the greeting file.' },
        });
        expect(await readFile(join(stage.workdir, 'notes/hello.txt'), 'utf8')).toBe('Hello\n');
        expect(server.requests.map((request) => request.path)).toEqual([
          expect.stringMatching(provider.path),
          expect.stringMatching(provider.path),
        ]);
        expect(server.requests.map((request) => request.stream)).toEqual([streaming, streaming]);
        expect(server.requests[0]!.toolNames).toContain('write_file');
        expect(server.requests[0]!.messages.at(-1)).toMatchObject({
          role: 'user',
          text: 'Write notes/hello.txt',
        });
        expect(server.requests[1]!.messages.find((message) => message.role === 'tool')?.text).toContain(
          'Wrote 6 bytes to notes/hello.txt',
        );
        expect(stage.events).toContainEqual(
          expect.objectContaining({
            type: 'agent.tool_call.completed',
            toolName: 'write_file',
            isError: false,
          }),
        );
        const deltas = stage.events.filter((event) => event.type === 'agent.text' && event.delta);
        if (streaming) {
          expect(deltas.map((event) => (event.type === 'agent.text' ? event.text : '')).join('')).toBe(
            'Wrote the greeting file.',
          );
          expect(deltas.length).toBeGreaterThan(1);
        } else expect(deltas).toEqual([]);
      });
    }

    it('retries a 429 inside the backend: one stage attempt, no node retry, the wait recorded', async () => {
      server = await startScriptedLlmServer({
        script: [
          { type: 'error', status: 429, message: 'Too many requests' },
          { type: 'text', text: 'Done.' },
        ],
      });
      const { result, events, logsRoot, clock } = await runDot({
        dot: `digraph G { start [shape=Mdiamond]; work [${nodeAttributes(provider)}]; exit [shape=Msquare]; start -> work -> exit }`,
        backend: { env: provider.env(server), ...provider.options },
      });

      expect(result.status).toBe('success');
      expect(server.requests).toHaveLength(2);
      expect(events.filter((event) => event.type === 'stage.started')).toHaveLength(3);
      expect(
        events.filter((event) => event.type === 'stage.failed' || event.type === 'stage.retrying'),
      ).toEqual([]);
      expect(clock.sleeps).toEqual([500]);
      const recorded = (await readFile(join(logsRoot, 'events.jsonl'), 'utf8'))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as PipelineEvent);
      const wait = recorded.find((event) => event.type === 'stage.custom' && event.name === 'llm.retry');
      expect(wait).toMatchObject({
        nodeId: 'work',
        data: { attempt: 1, maxAttempts: 6, delayMs: 500, statusCode: 429, model: provider.model },
      });
    });

    it('honours retry-after on the injected clock', async () => {
      const status = provider.name === 'anthropic' ? 529 : 503;
      server = await startScriptedLlmServer({
        script: [
          { type: 'error', status, headers: { 'retry-after': '7' } },
          { type: 'error', status: 429, headers: { 'retry-after-ms': '1250' } },
          { type: 'text', text: 'Finally.' },
        ],
      });
      const clock = createTestClock();
      const stage = await createStageRequest({
        node: {
          id: 'work',
          llmModel: provider.model,
          ...(provider.llmProvider === undefined ? {} : { llmProvider: provider.llmProvider }),
        },
      });
      const backend = createAiSdkBackend({ env: provider.env(server), clock, ...provider.options });

      const outcome = await backend.run(stage.request);

      expect(outcome).toMatchObject({ status: 'success', contextUpdates: { last_response: 'Finally.' } });
      expect(clock.sleeps).toEqual([7000, 1250]);
      expect(stage.events).toContainEqual(
        expect.objectContaining({
          type: 'stage.log',
          level: 'warn',
          message: expect.stringContaining(`HTTP ${status}`),
        }),
      );
    });

    it('fails a 401 at once, naming the provider and the variable to check', async () => {
      server = await startScriptedLlmServer({ apiKey: 'the-right-key' });
      const stage = await createStageRequest({
        node: {
          id: 'work',
          llmModel: provider.model,
          ...(provider.llmProvider === undefined ? {} : { llmProvider: provider.llmProvider }),
        },
      });
      const env = provider.env(server);
      const backend = createAiSdkBackend({ env, clock: createTestClock(), ...provider.options });

      const error = await backend.run(stage.request).catch((thrown: unknown) => thrown);

      expect(ModelCallError.isInstance(error)).toBe(true);
      const failure = error as ModelCallError;
      expect([failure.retryable, failure.failure, failure.statusCode]).toEqual([
        false,
        'authentication',
        401,
      ]);
      expect(failure.message).toContain(provider.keyVariable);
      expect(failure.message).toContain(`calling ${provider.label} model "${provider.model}"`);
      expect(server.requests).toHaveLength(1);
      const transcript = await readFile(join(stage.stageDir, 'transcript.jsonl'), 'utf8');
      for (const secret of Object.entries(env).filter(([name]) => name.endsWith('KEY'))) {
        expect(transcript).not.toContain(secret[1]);
      }
    });

    it('records token usage and cost in status.json and the agent.usage event', async () => {
      server = await startScriptedLlmServer({
        script: [
          {
            type: 'text',
            text: 'Counted.',
            usage: {
              inputTokens: 10_000,
              outputTokens: 2_000,
              cachedInputTokens: 4_000,
              reasoningTokens: 500,
            },
          },
        ],
      });
      const { result, events, logsRoot } = await runDot({
        dot: `digraph G { start [shape=Mdiamond]; work [${nodeAttributes(provider)}]; exit [shape=Msquare]; start -> work -> exit }`,
        backend: { env: provider.env(server), ...provider.options },
      });

      expect(result.status).toBe('success');
      const status = await readStatus(logsRoot, 'work');
      const updates = status.context_updates as Record<string, unknown>;
      expect(updates).toMatchObject({
        'usage.work.input_tokens': 10_000,
        'usage.work.output_tokens': 2_000,
        'usage.work.cached_input_tokens': 4_000,
        'usage.work.reasoning_tokens': provider.reportsReasoning ? 500 : 0,
      });
      // USD per million tokens: uncached input, cached input and output at the model's default prices.
      const expected: Record<string, number> = {
        'gpt-5.4': (6_000 * 2.5 + 4_000 * 0.25 + 2_000 * 15) / 1e6,
        'claude-sonnet-4-6': (6_000 * 3 + 4_000 * 0.3 + 2_000 * 15) / 1e6,
        'gemini-3-flash-preview': (6_000 * 0.5 + 4_000 * 0.05 + 2_000 * 3) / 1e6,
      };
      expect(updates['usage.work.cost_usd']).toBeCloseTo(expected[provider.model]!, 10);
      // The run's total is the engine's, from the call's `agent.usage` event.
      expect(result.context.get('usage.total.cost_usd')).toBeCloseTo(expected[provider.model]!, 10);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'agent.usage',
          inputTokens: 10_000,
          outputTokens: 2_000,
          cachedInputTokens: 4_000,
          ...(provider.reportsReasoning ? { reasoningTokens: 500 } : {}),
          model: provider.model,
        }),
      );
    });

    it('stops before the next LLM stage when the budget is spent and resumes with a bigger one', async () => {
      server = await startScriptedLlmServer({
        script: [
          { type: 'text', text: 'First.', usage: { inputTokens: 100_000, outputTokens: 10_000 } },
          { type: 'text', text: 'Second.' },
        ],
      });
      const dot = `digraph G {
        graph [max_budget_usd=0.05]
        start [shape=Mdiamond]; exit [shape=Msquare]
        first [${nodeAttributes(provider)}]; second [${nodeAttributes(provider)}]
        start -> first -> second -> exit
      }`;
      const env = provider.env(server);
      const { result, logsRoot, clock, graph } = await runDot({ dot, backend: { env, ...provider.options } });

      expect(result.status).toBe('fail');
      expect(result.failureReason).toMatch(
        /^budget max_budget_usd=0\.05 spent: the model calls cost \$\d+\.\d{4} before LLM stage "second"/,
      );
      expect(server.requests).toHaveLength(1);

      const resumed = await resumePipeline({
        graph,
        logsRoot,
        registry: createDefaultRegistry(),
        backend: createAiSdkBackend({ env, clock, ...provider.options }),
        clock,
        maxBudgetUsd: 5,
      });

      expect(resumed.status).toBe('success');
      expect(server.requests).toHaveLength(2);
      expect(resumed.nodeOutcomes.second).toMatchObject({ status: 'success' });
    });
  });
}
