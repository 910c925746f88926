/**
 * The Claude Code backend against the real `claude` CLI (brought by @anthropic-ai/claude-agent-sdk), pointed
 * with `ANTHROPIC_BASE_URL` at a scripted Anthropic Messages server on 127.0.0.1. No provider host is reached:
 * the server is also the CLI's HTTP(S) proxy and fails the file if anything else is asked for.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestClock, describeCodergenBackendContract } from '@attractor/engine/test';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaudeCodeBackendOptions, createClaudeCodeBackend } from '../src/index.js';
import {
  anthropicWire,
  prepareAgentTestHome,
  type ScriptedServer,
  startScriptedServer,
} from '../src/test/index.js';
import {
  eventsOf,
  expectResumedReview,
  readStageFile,
  runDot,
  runRetriedStructuredReview,
  tempDir,
  waitForNoProcess,
  watchForProcess,
} from './stage-pipeline.js';

let server: ScriptedServer;
let env: Readonly<Record<string, string>>;

beforeAll(async () => {
  server = await startScriptedServer(anthropicWire);
  ({ env } = await prepareAgentTestHome({
    agent: 'claude-code',
    server,
    path: process.env.PATH ?? '/usr/bin:/bin',
  }));
});

afterAll(async () => {
  expect(server.outbound).toEqual([]);
  await server.close();
});

function backend(options: ClaudeCodeBackendOptions = {}) {
  return createClaudeCodeBackend({ env, defaultModel: 'claude-test-1', ...options });
}

// Generous: each test starts the real CLI, several times under a busy CI machine's load.
describe('createClaudeCodeBackend with the real claude CLI', { timeout: 120_000 }, () => {
  it('writes a file in the workdir through the agent tool call and streams its messages into events', async () => {
    const workdir = await tempDir('write');
    server.script({
      write: [
        { tool: 'Write', input: { file_path: join(workdir, 'hello.txt'), content: 'Hello from Claude\n' } },
        { text: 'I wrote hello.txt.' },
      ],
    });
    const run = await runDot({
      workdir,
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Create hello.txt [[scenario:write]]"]
        start -> work -> exit }`,
    });

    expect(run.result.status).toBe('success');
    expect(await readFile(join(workdir, 'hello.txt'), 'utf8')).toBe('Hello from Claude\n');
    const started = eventsOf(run.events, 'agent.tool_call.started');
    expect(started.map((event) => event.toolName)).toEqual(['Write']);
    expect(started[0]?.arguments).toMatchObject({ file_path: join(workdir, 'hello.txt') });
    const completed = eventsOf(run.events, 'agent.tool_call.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ toolName: 'Write', isError: false, callId: started[0]?.callId });
    expect(eventsOf(run.events, 'agent.text').map((event) => event.text)).toContain('I wrote hello.txt.');
    const session = eventsOf(run.events, 'agent.session.started');
    expect(session).toHaveLength(1);
    expect(session[0]).toMatchObject({ agent: 'claude-code', resumed: false, nodeId: 'work' });
    const usage = eventsOf(run.events, 'agent.usage');
    expect(usage).toHaveLength(1);
    expect(usage[0]?.inputTokens).toBeGreaterThanOrEqual(200);
    expect(usage[0]?.outputTokens).toBe(40);
    expect(usage[0]?.costUsd).toBeGreaterThan(0);
    expect(await readStageFile(run, 'work', 'prompt.md')).toContain('Create hello.txt [[scenario:write]]');
    expect(await readStageFile(run, 'work', 'response.md')).toBe('I wrote hello.txt.');
    const transcript = (await readStageFile(run, 'work', 'transcript.jsonl')).trim().split('\n');
    expect(transcript.length).toBeGreaterThan(4);
    expect(transcript.join('\n')).not.toContain('sk-ant-test-0123456789');
    const status = JSON.parse(await readStageFile(run, 'work', 'status.json'));
    expect(status.outcome).toBe('success');
    expect(status.context_updates['agent.work.session_id']).toBe(session[0]?.sessionId);
  });

  it('reports the agent run as an invoke_agent span under the stage span, without the prompt', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    server.script({ traced: [{ text: 'Counted the zebras.' }] });
    const run = await runDot({
      backend: backend(),
      telemetry: { tracer: provider.getTracer('claude-code-test') },
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Count the secret zebras [[scenario:traced]]", llm_model="claude-test-1"]
        start -> work -> exit }`,
    });
    expect(run.result.status).toBe('success');
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const stage = spans.find((span) => span.name === 'stage work');
    const agent = spans.find((span) => span.name === 'invoke_agent claude-code');
    expect(agent?.parentSpanContext?.spanId).toBe(stage?.spanContext().spanId);
    expect(agent?.kind).toBe(SpanKind.CLIENT);
    const session = eventsOf(run.events, 'agent.session.started')[0];
    const usage = eventsOf(run.events, 'agent.usage')[0];
    expect(agent?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'claude-code',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test-1',
      'gen_ai.conversation.id': session?.sessionId,
      'gen_ai.usage.input_tokens': usage?.inputTokens,
      'gen_ai.usage.output_tokens': usage?.outputTokens,
      'attractor.node.id': 'work',
    });
    expect(agent?.attributes['attractor.llm.cost_usd']).toBeGreaterThan(0);
    const exported = JSON.stringify(spans.map((span) => [span.attributes, span.events, span.status]));
    expect(exported).not.toContain('secret zebras');
    expect(exported).not.toContain('Counted the zebras');
  });

  it('fails the stage with the agent error and routes on outcome=fail', async () => {
    server.script({
      broken: [{ httpError: 400, message: 'model claude-test-1 is not enabled for this key' }],
    });
    const run = await runDot({
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Break [[scenario:broken]]"]
        recover [shape=parallelogram, tool_command="echo recovered"]
        start -> work
        work -> exit [condition="outcome=success"]
        work -> recover [condition="outcome=fail"]
        recover -> exit }`,
    });

    expect(run.result.status).toBe('success');
    const work = eventsOf(run.events, 'stage.completed').find((event) => event.nodeId === 'work');
    expect(work?.status).toBe('fail');
    expect(work?.failureReason).toContain('model claude-test-1 is not enabled for this key');
    expect(eventsOf(run.events, 'stage.completed').map((event) => event.nodeId)).toContain('recover');
  });

  it('lets a status.json the agent writes in $ATTRACTOR_STAGE_DIR override the outcome with a custom word', async () => {
    const workdir = await tempDir('status');
    const logsRoot = join(workdir, '.attractor', 'run');
    server.script({
      status: [
        {
          tool: 'Write',
          input: {
            file_path: join(logsRoot, 'triage', 'status.json'),
            content: JSON.stringify({ outcome: 'needs_review', notes: 'two files changed' }),
          },
        },
        { text: 'Reported needs_review.' },
      ],
    });
    const run = await runDot({
      workdir,
      logsRoot,
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        triage [prompt="Triage [[scenario:status]]"]
        review [shape=parallelogram, tool_command="echo reviewing"]
        start -> triage
        triage -> exit [condition="outcome=success"]
        triage -> review [condition="outcome=needs_review"]
        review -> exit }`,
    });

    expect(run.result.status).toBe('success');
    const triage = eventsOf(run.events, 'stage.completed').find((event) => event.nodeId === 'triage');
    expect(triage).toMatchObject({ status: 'needs_review', notes: 'two files changed' });
    expect(eventsOf(run.events, 'stage.completed').map((event) => event.nodeId)).toContain('review');
    expect(await readStageFile(run, 'triage', 'prompt.md')).toContain('needs_review');
  });

  it('ends the whole process group on a node timeout, leaving no agent process behind', async () => {
    const marker = `attractor-claude-timeout-${process.pid}`;
    server.script({
      sleepy: [
        {
          tool: 'Bash',
          input: {
            command: `node -e "setInterval(() => {}, 1000)" ${marker}`,
            description: 'Run the server',
          },
        },
      ],
    });
    const watch = watchForProcess(marker);
    // The node's timeout runs on the test's clock: it fires once the agent's command is seen running, however long
    // the agent took to start on a busy machine.
    const clock = createTestClock({ autoAdvance: false });
    const running = runDot({
      backend: backend({ allowedTools: ['Bash'], killGraceMs: 500 }),
      clock,
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Wait [[scenario:sleepy]]", timeout="15s"]
        start -> work -> exit }`,
    });
    await watch.appeared;
    await clock.advance(15_000);
    const run = await running;
    watch.stop();
    expect(watch.seen()).toBe(true);
    // The command never finished by itself: at most Claude Code reports it killed (SIGTERM reaches claude first, and
    // it may report the Bash call it ended before it exits itself).
    for (const completed of eventsOf(run.events, 'agent.tool_call.completed')) {
      expect(completed).toMatchObject({ toolName: 'Bash', isError: true });
      expect(String(completed.output)).toMatch(/Exit code 1(37|43)|signal|interrupted|abort/i);
    }
    // The stage ended while the command ran; nothing of the agent's process group may be left.
    expect(run.result.status).toBe('fail');
    expect(eventsOf(run.events, 'agent.tool_call.started').map((event) => event.toolName)).toEqual(['Bash']);
    const failed = eventsOf(run.events, 'stage.failed')[0];
    expect(failed?.error).toContain('timeout');
    // Waits on the condition (generously: the suite runs beside other work); a leaked process never goes.
    expect(await waitForNoProcess(marker, 30_000)).toEqual([]);
  }, 75_000);

  it("asks for an output_schema through Claude Code's structured output, retries an invalid answer, maps the valid one", async () => {
    const invalid = { tool: 'StructuredOutput', input: { verdict: 'approve', score: 'high' } };
    const { run, failed, requests } = await runRetriedStructuredReview({
      server,
      backend: backend(),
      attempts: [
        // The model answers in text and ignores Claude Code's reminder: the handler finds the reply invalid.
        [
          { text: '{"verdict": "approve", "score": "high"}' },
          { text: '{"verdict": "approve", "score": "high"}' },
        ],
        // Claude Code refuses each invalid StructuredOutput call itself, five times, then gives up.
        [invalid, invalid, invalid, invalid, invalid],
        [{ tool: 'StructuredOutput', input: { verdict: 'reject', score: 2 } }],
      ],
    });
    expect(failed[1]?.error).toContain('Claude Code stopped (error_max_structured_output_retries)');
    expect(failed[1]?.error).toContain('/score: must be integer');
    // The answer is the StructuredOutput call's input, from the result's structured_output.
    expect(await readStageFile(run, 'review', 'response.md')).toBe('{"verdict":"reject","score":2}');
    // Claude Code gives the model the schema as the input schema of its StructuredOutput tool.
    expect(requests).toHaveLength(2 + 5 + 1);
    for (const request of requests) {
      const tools = (request.body as { tools: { name: string; input_schema: unknown }[] }).tools;
      expect(tools.find((tool) => tool.name === 'StructuredOutput')?.input_schema).toMatchObject({
        properties: { verdict: { type: 'string' }, score: { type: 'integer' } },
        required: ['verdict', 'score'],
      });
    }
  });

  it('continues a session after a structured-output stage, with the answer in the conversation', async () => {
    server.script({
      plan: [{ tool: 'StructuredOutput', input: { verdict: 'approve', score: 9 } }],
      build: [{ text: 'Built what was approved.' }],
    });
    const run = await runDot({
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        review [prompt="Judge it [[scenario:plan]]", fidelity="full", thread_id="feature",
                output_schema="verdict: string, score: integer"]
        build [prompt="Build it [[scenario:build]]", fidelity="full", thread_id="feature"]
        start -> review -> build -> exit }`,
    });

    expectResumedReview(run);
    expect(await readStageFile(run, 'build', 'response.md')).toBe('Built what was approved.');
    const build = server.requests.find((request) => request.scenario === 'build');
    expect(JSON.stringify(build?.body)).toContain('"score":9');
    // The schema was the review stage's: the build stage's request has no StructuredOutput tool.
    const tools = ((build?.body as { tools?: { name: string }[] } | undefined)?.tools ?? []).map(
      (tool) => tool.name,
    );
    expect(tools).toContain('Write');
    expect(tools).not.toContain('StructuredOutput');
  });

  it('resumes one Claude Code session across a full-fidelity pair of stages', async () => {
    server.script({
      first: [{ text: 'Plan: add a greeting.' }],
      second: [{ text: 'Implemented the plan.' }],
    });
    const agent = backend();
    const run = await runDot({
      backend: agent,
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        plan [prompt="Plan it [[scenario:first]]", fidelity="full", thread_id="feature"]
        build [prompt="Build it [[scenario:second]]", fidelity="full", thread_id="feature"]
        start -> plan -> build -> exit }`,
    });

    expect(run.result.status).toBe('success');
    const sessions = eventsOf(run.events, 'agent.session.started');
    expect(sessions.map((event) => [event.nodeId, event.resumed])).toEqual([
      ['plan', false],
      ['build', true],
    ]);
    expect(agent.sessionId('feature')).toBe(sessions[1]?.sessionId);
    const second = server.requests.filter((request) => request.scenario === 'second');
    expect(second.length).toBeGreaterThan(0);
    const texts = second[0]?.texts.join('\n') ?? '';
    expect(texts).toContain('Plan it [[scenario:first]]');
    expect(texts).toContain('Plan: add a greeting.');
  });
});

describeCodergenBackendContract('claude-code', {
  createBackend: () => backend(),
  request: async () => {
    const stageDir = await tempDir('contract-stage');
    return { stageDir, workdir: stageDir, prompt: 'Say hello [[scenario:contract]]' };
  },
});
