/**
 * The backend inside real pipeline runs (`runPipeline` with the built-in handlers of @attractor/handlers, so the
 * real codergen handler) against the scripted server:
 * engine-driven retries (spec Appendix D) and the integration smoke test of spec §11.13.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileRunStore, type PipelineEvent, runPipeline } from '@attractor/engine';
import { createTestClock, createTestGraph, tempDir } from '@attractor/engine/test';
import { prepareGraph, validate } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import { createAiSdkBackend } from '../src/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../src/test/index.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs `start -> work -> exit` (work with `maxRetries`) against the scripted server. */
async function runWorkPipeline(options: {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly maxRetries: number;
  readonly clock: ReturnType<typeof createTestClock>;
  readonly events?: PipelineEvent[];
}) {
  const graph = createTestGraph({
    nodes: [{ id: 'work', maxRetries: options.maxRetries }],
    edges: ['start -> work -> exit'],
  });
  const root = tempDir('backend-pipeline-');
  return runPipeline({
    graph,
    registry: createDefaultRegistry(),
    logsRoot: join(root, 'run'),
    workdir: root,
    clock: options.clock,
    backend: createAiSdkBackend({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      defaultModel: 'gpt-test',
      clock: options.clock,
      random: () => 0,
    }),
    onEvent: (event) => options.events?.push(event),
  });
}

describe('createAiSdkBackend in runPipeline (spec Appendix D retries)', () => {
  it('retries a 429 inside the backend: one stage attempt, no node retry used, the wait recorded', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'error', status: 429, message: 'Rate limit reached' },
        { type: 'text', text: 'Done' },
      ],
    });
    const events: PipelineEvent[] = [];
    const clock = createTestClock();

    const result = await runWorkPipeline({
      baseURL: server.baseURL,
      apiKey: 'k',
      maxRetries: 2,
      clock,
      events,
    });

    expect(result.status).toBe('success');
    expect(server.requests).toHaveLength(2);
    expect(events.filter((event) => event.type === 'stage.failed')).toEqual([]);
    expect(events.filter((event) => event.type === 'stage.retrying')).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'stage.custom', nodeId: 'work', name: 'llm.retry' }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'stage.log',
        level: 'warn',
        message: expect.stringContaining('openai HTTP 429'),
      }),
    );
    expect(clock.sleeps).toEqual([500]);
    expect(result.nodeOutcomes.work).toMatchObject({ status: 'success' });
  });

  it('fails a 401 at once although max_retries allows more attempts', async () => {
    server = await startScriptedOpenAIServer({ apiKey: 'expected' });

    const result = await runWorkPipeline({
      baseURL: server.baseURL,
      apiKey: 'wrong',
      maxRetries: 3,
      clock: createTestClock(),
    });

    expect(result.status).toBe('fail');
    expect(server.requests).toHaveLength(1);
    expect(result.nodeOutcomes.work).toMatchObject({ status: 'fail', retryable: false });
    expect(result.nodeOutcomes.work?.failureReason).toContain('OPENAI_API_KEY');
  });
});

describe('integration smoke test (spec §11.13)', () => {
  it('runs plan -> implement -> review -> done with the real OpenAI client and checks every §11.13 assertion', async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { type: 'text', text: 'Plan: write hello.py that prints Hello World, then run it.' },
        {
          type: 'tool-calls',
          calls: [
            { name: 'write_file', arguments: { file_path: 'hello.py', content: 'print("Hello World")\n' } },
          ],
        },
        { type: 'tool-calls', calls: [{ name: 'shell', arguments: { command: 'cat hello.py' } }] },
        { type: 'text', text: 'Wrote hello.py.' },
        { type: 'tool-calls', calls: [{ name: 'read_file', arguments: { file_path: 'hello.py' } }] },
        { type: 'text', text: 'The code is correct.' },
      ],
    });
    const dot = await readFile(new URL('./fixtures/smoke-pipeline.dot', import.meta.url), 'utf8');
    const root = tempDir('backend-pipeline-');
    const logsRoot = join(root, 'run');
    const workdir = join(root, 'work');
    await mkdir(workdir);

    // 1. Parse.
    const prepared = prepareGraph(dot, { filename: 'smoke-pipeline.dot' });
    const graph = prepared.graph!;
    expect(graph.settings.goal).toBe('Create a hello world Python script');
    expect(graph.nodes.size).toBe(5);
    expect(graph.edges).toHaveLength(6);

    // 2. Validate: no error-severity results.
    expect(prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    expect(validate(graph).filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);

    // 3. Execute with the LLM backend.
    const result = await runPipeline({
      graph,
      registry: createDefaultRegistry(),
      logsRoot,
      workdir,
      clock: createTestClock(),
      backend: createAiSdkBackend({ baseURL: server.baseURL, apiKey: 'k', defaultModel: 'gpt-test' }),
    });

    // 4. Verify.
    expect(result.status).toBe('success');
    expect(result.completedNodes).toContain('implement');
    for (const node of ['plan', 'implement', 'review']) {
      for (const file of ['prompt.md', 'response.md', 'status.json']) {
        expect((await stat(join(logsRoot, node, file))).isFile(), `${node}/${file}`).toBe(true);
      }
      expect((await stat(join(logsRoot, node, 'transcript.jsonl'))).isFile()).toBe(true);
      const status = JSON.parse(await readFile(join(logsRoot, node, 'status.json'), 'utf8')) as {
        outcome: string;
      };
      expect(status.outcome).toBe('success');
    }
    // prompt.md holds the whole prompt sent: the system prompt, the preamble and the node's prompt.
    const planPrompt = await readFile(join(logsRoot, 'plan', 'prompt.md'), 'utf8');
    expect(planPrompt).toMatch(/^## system\n\nYou are a coding agent/);
    expect(planPrompt).toContain(
      '## user\n\nGoal: Create a hello world Python script\nRun: run\n\nCompleted stages (1):\n- start: success\n\nPlan how to create a hello world script for: Create a hello world Python script\n',
    );
    expect(await readFile(join(logsRoot, 'review', 'response.md'), 'utf8')).toBe('The code is correct.');
    expect(await readFile(join(workdir, 'hello.py'), 'utf8')).toBe('print("Hello World")\n');
    expect(server.requests[3]!.messages.at(-1)?.text).toContain('print("Hello World")');

    // 5. Goal gate: implement's latest outcome is a success.
    expect(result.nodeOutcomes.implement?.status).toBe('success');

    // 6. Checkpoint.
    const checkpoint = await createFileRunStore({ logsRoot }).readCheckpoint();
    expect(checkpoint?.current_node).toBe('done');
    for (const node of ['plan', 'implement', 'review']) expect(checkpoint?.completed_nodes).toContain(node);

    // Usage accumulates across the stages (6 model calls of 10 + 5 tokens).
    expect(result.context.get('usage.total.total_tokens')).toBe(90);
    expect(result.context.get('usage.implement.input_tokens')).toBe(30);
  });
});
