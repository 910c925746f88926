/**
 * The Codex backend against the real `codex` CLI (@openai/codex), configured through a temp `CODEX_HOME` with a
 * custom model provider whose base URL is a scripted Responses API server on 127.0.0.1. No provider host is
 * reached: update checks, analytics and plugin sync are off, and the server, as the CLI's HTTP(S) proxy, fails
 * the file if anything else is asked for.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestClock, describeCodergenBackendContract } from '@attractor/engine/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodexBackendOptions, createCodexBackend } from '../src/index.js';
import {
  openaiResponsesWire,
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
  server = await startScriptedServer(openaiResponsesWire);
  ({ env } = await prepareAgentTestHome({
    agent: 'codex',
    server,
    path: process.env.PATH ?? '/usr/bin:/bin',
  }));
});

afterAll(async () => {
  expect(server.outbound).toEqual([]);
  await server.close();
});

function backend(options: CodexBackendOptions = {}) {
  return createCodexBackend({ env, ...options });
}

// Generous: each test starts the real CLI, several times under a busy CI machine's load.
describe('createCodexBackend with the real codex CLI', { timeout: 120_000 }, () => {
  it('writes a file in the workdir through the agent tool call and streams its messages into events', async () => {
    server.script({
      write: [
        { tool: 'exec_command', input: { cmd: "printf 'Hello from Codex\\n' > hello.txt" } },
        { text: 'I wrote hello.txt.' },
      ],
    });
    const run = await runDot({
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Create hello.txt [[scenario:write]]"]
        start -> work -> exit }`,
    });

    expect(run.result.status).toBe('success');
    expect(await readFile(join(run.workdir, 'hello.txt'), 'utf8')).toBe('Hello from Codex\n');
    const started = eventsOf(run.events, 'agent.tool_call.started');
    expect(started.map((event) => event.toolName)).toEqual(['shell']);
    expect(JSON.stringify(started[0]?.arguments)).toContain('hello.txt');
    expect(eventsOf(run.events, 'agent.tool_call.completed')[0]).toMatchObject({
      toolName: 'shell',
      isError: false,
    });
    expect(eventsOf(run.events, 'agent.text').map((event) => event.text)).toContain('I wrote hello.txt.');
    const session = eventsOf(run.events, 'agent.session.started');
    expect(session).toHaveLength(1);
    expect(session[0]).toMatchObject({ agent: 'codex', resumed: false });
    expect(eventsOf(run.events, 'agent.usage')[0]).toMatchObject({ inputTokens: 200, outputTokens: 40 });
    expect(await readStageFile(run, 'work', 'prompt.md')).toContain('[[scenario:write]]');
    expect(await readStageFile(run, 'work', 'response.md')).toBe('I wrote hello.txt.');
    const transcript = await readStageFile(run, 'work', 'transcript.jsonl');
    expect(transcript).toContain('thread.started');
    expect(transcript).not.toContain('sk-scripted-0123456789');
  });

  it('fails the stage with the agent error and routes on outcome=fail', async () => {
    server.script({
      broken: [{ httpError: 400, message: 'model gpt-5.1-codex is not enabled for this key' }],
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
    expect(work?.failureReason).toContain('not enabled for this key');
    expect(eventsOf(run.events, 'stage.completed').map((event) => event.nodeId)).toContain('recover');
  });

  it('lets a status.json the agent writes in $ATTRACTOR_STAGE_DIR override the outcome with a custom word', async () => {
    server.script({
      status: [
        {
          tool: 'exec_command',
          input: {
            cmd: `printf '%s' '{"outcome":"needs_review","notes":"two files changed"}' > "$ATTRACTOR_STAGE_DIR/status.json"`,
          },
        },
        { text: 'Reported needs_review.' },
      ],
    });
    const run = await runDot({
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
  });

  it('ends the whole process group on a node timeout, leaving no agent process behind', async () => {
    const marker = `attractor-codex-timeout-${process.pid}`;
    server.script({
      sleepy: [
        {
          tool: 'exec_command',
          input: { cmd: `node -e "setInterval(() => {}, 1000)" ${marker}`, yield_time_ms: 30000 },
        },
      ],
    });
    const watch = watchForProcess(marker);
    // The node's timeout runs on the test's clock: it fires once the agent's command is seen running, however long
    // the agent took to start on a busy machine.
    const clock = createTestClock({ autoAdvance: false });
    const running = runDot({
      backend: backend({ killGraceMs: 500 }),
      clock,
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Wait [[scenario:sleepy]]", timeout="10s"]
        start -> work -> exit }`,
    });
    await watch.appeared;
    await clock.advance(10_000);
    const run = await running;
    watch.stop();

    expect(watch.seen()).toBe(true);
    expect(run.result.status).toBe('fail');
    expect(eventsOf(run.events, 'stage.failed')[0]?.error).toContain('timeout');
    // Waits on the condition (generously: the suite runs beside other work); a leaked process never goes.
    expect(await waitForNoProcess(marker, 30_000)).toEqual([]);
  }, 70_000);

  it('asks for an output_schema with --output-schema (text.format), retries an invalid answer, maps the valid one', async () => {
    const { run, requests } = await runRetriedStructuredReview({ server, backend: backend() });
    expect(requests).toHaveLength(2);
    const schema = JSON.parse(await readStageFile(run, 'review', 'output-schema.json'));
    expect(schema).toMatchObject({ properties: { verdict: { type: 'string' }, score: { type: 'integer' } } });
    // Codex sends the schema as the Responses API's structured output format, on every attempt.
    for (const request of requests) {
      expect((request.body as { text?: { format?: unknown } }).text?.format).toMatchObject({
        type: 'json_schema',
        schema,
      });
    }
  });

  it('sends an optional field as nullable (strict mode) and leaves its null out; a free-form object in the prompt', async () => {
    server.script({
      optional: [{ text: '{"verdict": "approve", "note": null}' }],
      freeform: [{ text: '{"meta": {"files": 3}}' }],
    });
    const run = await runDot({
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        review [prompt="Judge it [[scenario:optional]]", output_schema="verdict: string, note?: string"]
        stats [prompt="Count [[scenario:freeform]]", output_schema="meta: object"]
        start -> review -> stats -> exit }`,
    });

    expect(run.result.status).toBe('success');
    const strict = {
      type: 'object',
      properties: { verdict: { type: 'string' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['verdict', 'note'],
      additionalProperties: false,
    };
    expect(JSON.parse(await readStageFile(run, 'review', 'output-schema.json'))).toEqual(strict);
    const review = server.requests.find((request) => request.scenario === 'optional');
    expect((review?.body as { text?: { format?: unknown } } | undefined)?.text?.format).toMatchObject({
      strict: true,
      schema: strict,
    });
    expect(JSON.parse(await readStageFile(run, 'review', 'response.md'))).toEqual({ verdict: 'approve' });
    expect(run.result.context.get('review.verdict')).toBe('approve');
    expect(run.result.context.has('review.note')).toBe(false);
    // `meta: object` allows any object, which strict mode cannot say: no --output-schema, the schema is in the prompt.
    const stats = server.requests.find((request) => request.scenario === 'freeform');
    expect((stats?.body as { text?: { format?: unknown } } | undefined)?.text?.format).not.toMatchObject({
      type: 'json_schema',
    });
    expect(stats?.texts.some((text) => text.includes('"meta"') && text.includes('JSON Schema'))).toBe(true);
    expect(run.result.context.get('stats.meta')).toEqual({ files: 3 });
  });

  it('keeps the output_schema when a stage continues a thread (codex exec resume)', async () => {
    server.script({
      plan: [{ text: 'Plan: add a greeting.' }],
      verdict: [{ text: '{"verdict": "approve", "score": 9}' }],
    });
    const run = await runDot({
      backend: backend(),
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        plan [prompt="Plan it [[scenario:plan]]", fidelity="full", thread_id="feature"]
        review [prompt="Judge it [[scenario:verdict]]", fidelity="full", thread_id="feature",
                output_schema="verdict: string, score: integer"]
        start -> plan -> review -> exit }`,
    });

    expectResumedReview(run);
    const verdict = server.requests.find((request) => request.scenario === 'verdict');
    expect((verdict?.body as { text?: { format?: unknown } } | undefined)?.text?.format).toMatchObject({
      type: 'json_schema',
      schema: { properties: { verdict: { type: 'string' }, score: { type: 'integer' } } },
    });
  });

  it('resumes one Codex thread across a full-fidelity pair of stages', async () => {
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
    expect(sessions[1]?.sessionId).toBe(sessions[0]?.sessionId);
    expect(agent.sessionId('feature')).toBe(sessions[0]?.sessionId);
    const second = server.requests.find((request) => request.scenario === 'second');
    expect(second?.texts.join('\n')).toContain('Plan it [[scenario:first]]');
    expect(second?.texts.join('\n')).toContain('Plan: add a greeting.');
  });
});

describeCodergenBackendContract('codex', {
  createBackend: () => backend(),
  request: async () => {
    const stageDir = await tempDir('contract-stage');
    return { stageDir, workdir: stageDir, prompt: 'Say hello [[scenario:contract]]' };
  },
});
