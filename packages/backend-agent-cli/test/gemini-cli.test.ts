/**
 * The Gemini CLI backend against the real `gemini` CLI (@google/gemini-cli), pointed with `GOOGLE_GEMINI_BASE_URL`
 * at a scripted Gemini API server on 127.0.0.1, with a temp `GEMINI_CLI_HOME` whose settings turn off usage
 * statistics, telemetry and update checks. No provider host is reached: the server, as the CLI's HTTP(S) proxy,
 * fails the file if anything else is asked for.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestClock, describeCodergenBackendContract } from '@attractor/engine/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeminiCliBackend, type GeminiCliBackendOptions } from '../src/index.js';
import {
  geminiWire,
  prepareAgentTestHome,
  type ScriptedServer,
  startScriptedServer,
} from '../src/test/index.js';
import {
  eventsOf,
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
  server = await startScriptedServer(geminiWire);
  ({ env } = await prepareAgentTestHome({
    agent: 'gemini-cli',
    server,
    path: process.env.PATH ?? '/usr/bin:/bin',
  }));
});

afterAll(async () => {
  expect(server.outbound).toEqual([]);
  await server.close();
});

function backend(options: GeminiCliBackendOptions = {}) {
  return createGeminiCliBackend({ env, defaultModel: 'gemini-2.5-pro', ...options });
}

// Generous: each test starts the real CLI, several times under a busy CI machine's load.
describe('createGeminiCliBackend with the real gemini CLI', { timeout: 120_000 }, () => {
  it('writes a file in the workdir through the agent tool call and streams its messages into events', async () => {
    server.script({
      write: [
        { tool: 'write_file', input: { file_path: 'hello.txt', content: 'Hello from Gemini\n' } },
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
    expect(await readFile(join(run.workdir, 'hello.txt'), 'utf8')).toBe('Hello from Gemini\n');
    const started = eventsOf(run.events, 'agent.tool_call.started');
    expect(started.map((event) => event.toolName)).toEqual(['write_file']);
    expect(JSON.stringify(started[0]?.arguments)).toContain('hello.txt');
    expect(eventsOf(run.events, 'agent.tool_call.completed')[0]).toMatchObject({
      toolName: 'write_file',
      isError: false,
    });
    expect(eventsOf(run.events, 'agent.text').map((event) => event.text)).toContain('I wrote hello.txt.');
    const session = eventsOf(run.events, 'agent.session.started');
    expect(session).toHaveLength(1);
    expect(session[0]).toMatchObject({ agent: 'gemini-cli', resumed: false });
    expect(eventsOf(run.events, 'agent.usage')[0]).toMatchObject({ inputTokens: 200, outputTokens: 40 });
    expect(await readStageFile(run, 'work', 'prompt.md')).toContain('[[scenario:write]]');
    expect(await readStageFile(run, 'work', 'response.md')).toBe('I wrote hello.txt.');
    const transcript = await readStageFile(run, 'work', 'transcript.jsonl');
    expect(transcript).toContain('"init"');
    expect(transcript).not.toContain('gm-scripted-0123456789');
  });

  it('fails the stage with the agent error and routes on outcome=fail', async () => {
    server.script({
      broken: [{ httpError: 400, message: 'model gemini-2.5-pro is not enabled for this key' }],
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
    const workdir = await tempDir('status');
    const logsRoot = join(workdir, '.attractor', 'run');
    server.script({
      status: [
        {
          tool: 'write_file',
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
  });

  it('ends the whole process group on a node timeout, leaving no agent process behind', async () => {
    const marker = `attractor-gemini-timeout-${process.pid}`;
    server.script({
      sleepy: [
        {
          tool: 'run_shell_command',
          input: { command: `node -e "setInterval(() => {}, 1000)" ${marker}` },
        },
      ],
    });
    const watch = watchForProcess(marker);
    // The node's timeout runs on the test's clock: it fires once the agent's command is seen running, however long
    // the agent took to start on a busy machine.
    const clock = createTestClock({ autoAdvance: false });
    const running = runDot({
      backend: backend({ killGraceMs: 500, permissions: 'full' }),
      clock,
      dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
        work [prompt="Wait [[scenario:sleepy]]", timeout="30s"]
        start -> work -> exit }`,
    });
    await watch.appeared;
    await clock.advance(30_000);
    const run = await running;
    watch.stop();

    expect(eventsOf(run.events, 'agent.tool_call.completed')).toEqual([]);
    expect(watch.seen()).toBe(true);
    expect(run.result.status).toBe('fail');
    expect(eventsOf(run.events, 'stage.failed')[0]?.error).toContain('timeout');
    // Waits on the condition (generously: the suite runs beside other work); a leaked process never goes.
    expect(await waitForNoProcess(marker, 30_000)).toEqual([]);
  }, 90_000);

  it('puts an output_schema into the prompt (no schema option), retries an invalid answer, maps the valid one', async () => {
    const { requests } = await runRetriedStructuredReview({ server, backend: backend() });
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const prompt = request.texts.find((text) => text.includes('[[scenario:structured]]')) ?? '';
      expect(prompt).toContain('answer with\nJSON only');
      const schema = JSON.parse(prompt.slice(prompt.indexOf('{', prompt.indexOf('JSON only'))));
      expect(schema).toMatchObject({
        properties: { verdict: { type: 'string' }, score: { type: 'integer' } },
      });
    }
  });

  it('resumes one Gemini CLI session across a full-fidelity pair of stages', async () => {
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

describeCodergenBackendContract('gemini-cli', {
  createBackend: () => backend(),
  request: async () => {
    const stageDir = await tempDir('contract-stage');
    return { stageDir, workdir: stageDir, prompt: 'Say hello [[scenario:contract]]' };
  },
});
