import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPipeline, systemClock } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingQuestion, RunDetails, RunSummary } from '../src/index.js';
import { readFixture, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function pendingQuestions(test: TestServer, runId: string): Promise<PendingQuestion[]> {
  const body = await test.json<{ questions: PendingQuestion[] }>(`/pipelines/${runId}/questions`);
  return body.questions;
}

async function waitForQuestion(test: TestServer, runId: string): Promise<PendingQuestion> {
  return waitFor(async () => (await pendingQuestions(test, runId))[0], `a question in ${runId}`);
}

async function waitForState(test: TestServer, runId: string, state: string): Promise<RunDetails> {
  return waitFor(async () => {
    const details = await test.json<RunDetails>(`/pipelines/${runId}`);
    return details.state === state ? details : undefined;
  }, `run ${runId} to be ${state}`);
}

async function answer(test: TestServer, runId: string, questionId: string, body: unknown): Promise<Response> {
  return test.call(`/pipelines/${runId}/questions/${encodeURIComponent(questionId)}/answer`, {
    method: 'POST',
    json: body,
  });
}

describe('pipeline runs over HTTP (spec §9.5)', () => {
  it('starts a pipeline, waits at the human gate, takes the answer over HTTP and finishes', async () => {
    server = await startTestServer();
    const response = await server.call('/pipelines', {
      method: 'POST',
      json: { dot: await readFixture('review-gate.dot'), context: { ticket: 'ATR-9' } },
    });
    expect(response.status).toBe(201);
    const started = (await response.json()) as RunSummary;
    expect(started).toMatchObject({ graphName: 'review', goal: 'Ship a reviewed change', live: true });
    expect(response.headers.get('location')).toBe(`/pipelines/${started.id}`);
    expect(started.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-review$/);

    const pending = await waitForQuestion(server, started.id);
    expect(pending.question).toMatchObject({
      text: 'Approve the draft?',
      type: 'multiple_choice',
      stage: 'approve',
      options: [
        { key: 'A', label: '[A] Approve' },
        { key: 'R', label: '[R] Revise' },
      ],
    });
    const waiting = await server.json<RunDetails>(`/pipelines/${started.id}`);
    expect(waiting).toMatchObject({
      state: 'waiting',
      currentNode: 'approve',
      pendingQuestions: 1,
      waitingNodes: ['approve'],
      nodeStatuses: { start: 'success', draft: 'success', approve: 'running' },
    });

    const answered = await answer(server, started.id, pending.id, { value: 'A' });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({
      questionId: pending.id,
      answer: { value: 'A', selectedOption: { key: 'A', label: '[A] Approve' } },
    });

    const finished = await waitForState(server, started.id, 'success');
    expect(finished).toMatchObject({
      live: false,
      resumable: false,
      pendingQuestions: 0,
      completedNodes: ['start', 'draft', 'approve', 'done'],
      nodeStatuses: { start: 'success', draft: 'success', approve: 'success', done: 'success' },
    });
    expect(finished.stages).toContainEqual({
      nodeId: 'draft',
      files: ['prompt.md', 'response.md', 'status.json'],
    });
    expect(await pendingQuestions(server, started.id)).toEqual([]);
  });

  it("reports a live run's start as its manifest does, so a server started later reports the same time", async () => {
    // A clock that moves a second on every reading: the server's own reading when it took the run differs from the
    // engine's reading written in the manifest (once the live run reported the former, a restart the latter).
    let nowMs = Date.parse('2026-01-01T00:00:00Z');
    server = await startTestServer({
      clock: { now: () => (nowMs += 1000), sleep: (ms, signal) => systemClock.sleep(ms, signal) },
    });
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    const manifest = JSON.parse(readFileSync(join(server.runsDir, id, 'manifest.json'), 'utf8')) as {
      started_at: string;
    };
    await waitFor(
      async () =>
        (await server!.json<RunDetails>(`/pipelines/${id}`)).startedAt === manifest.started_at
          ? true
          : undefined,
      `the run's startedAt to be the manifest's ${manifest.started_at}`,
    );
    const listed = await server.json<{ pipelines: RunSummary[] }>('/pipelines');
    expect(listed.pipelines.find((run) => run.id === id)?.startedAt).toBe(manifest.started_at);
  });

  it('lists runs newest first with their states', async () => {
    server = await startTestServer();
    const first = await server.startRun(
      'digraph one { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await waitForState(server, first, 'success');
    const second = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, second);
    const { pipelines } = await server.json<{ pipelines: RunSummary[] }>('/pipelines');
    expect(pipelines.map((run) => [run.id, run.graphName, run.state])).toEqual([
      [second, 'review', 'waiting'],
      [first, 'one', 'success'],
    ]);
  });

  it('serves the checkpoint, the context and the stage files of a run', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'), { context: { ticket: 'ATR-9' } });
    const pending = await waitForQuestion(server, id);
    const checkpoint = await server.json<Record<string, unknown>>(`/pipelines/${id}/checkpoint`);
    expect(checkpoint).toMatchObject({
      run_id: id,
      state: 'running',
      current_node: 'draft',
      next_node: 'approve',
    });
    const midway = await server.json<{ context: Record<string, unknown>; afterNode: string }>(
      `/pipelines/${id}/context`,
    );
    expect(midway.afterNode).toBe('draft');
    expect(midway.context).toMatchObject({ ticket: 'ATR-9', 'graph.goal': 'Ship a reviewed change' });

    await answer(server, id, pending.id, { value: 'A' });
    await waitForState(server, id, 'success');
    const final = await server.json<{ context: Record<string, unknown> }>(`/pipelines/${id}/context`);
    expect(final.context).toMatchObject({ 'human.gate.selected': 'A', ticket: 'ATR-9' });

    const prompt = await server.call(`/pipelines/${id}/stages/draft/prompt.md`);
    expect(prompt.status).toBe(200);
    expect(prompt.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await prompt.text()).toContain('Draft the change for: Ship a reviewed change');
    const response = await server.call(`/pipelines/${id}/stages/draft/response.md`);
    expect(await response.text()).toContain('[Simulated] Response for stage: draft');
    const status = await server.call(`/pipelines/${id}/stages/approve/status.json`);
    expect(JSON.parse(await status.text())).toMatchObject({ outcome: 'success' });
  });

  it('refuses stage file paths outside the allowed names', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    for (const path of [
      'draft/manifest.json',
      'draft/..%2F..%2Fmanifest.json',
      '..%2Fdraft/prompt.md',
      'draft/%2E%2E',
      '.%2E/checkpoint.json',
    ]) {
      const response = await server.call(`/pipelines/${id}/stages/${path}`);
      expect([404], path).toContain(response.status);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code, path).toBe('NOT_FOUND');
    }
  });

  it('renders the graph as SVG with node colours by status and the running node highlighted', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    const response = await server.call(`/pipelines/${id}/graph`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await response.text();
    expect(svg).toMatch(/<g id="node&#45;draft" class="node status&#45;success">/);
    expect(svg).toMatch(/<g id="node&#45;approve" class="node status&#45;running current waiting">/);
    expect(svg).toMatch(/<g id="node&#45;done" class="node status&#45;pending">/);
    expect(svg).toContain('stroke-width="3.2"');
  });

  it('draws the graph left to right with ?rankdir=LR and refuses another direction with 400', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    const size = (svg: string) => {
      const [, width, height] = /<svg width="(\d+)pt" height="(\d+)pt"/.exec(svg)!;
      return { width: Number(width), height: Number(height) };
    };
    const down = await (await server.call(`/pipelines/${id}/graph`)).text();
    expect(down).toContain('class="graph rankdir&#45;TB"');
    expect(size(down).height).toBeGreaterThan(size(down).width);
    const across = await server.call(`/pipelines/${id}/graph?rankdir=LR`);
    expect(across.status).toBe(200);
    const acrossSvg = await across.text();
    expect(acrossSvg).toContain('class="graph rankdir&#45;LR"');
    expect(size(acrossSvg).width).toBeGreaterThan(size(acrossSvg).height);
    const wrong = await server.call(`/pipelines/${id}/graph?rankdir=sideways`);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: {
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('?rankdir=sideways is not a direction'),
      },
    });
  });

  it('draws the graph without the run statuses with ?statuses=none (with ?rankdir too) and refuses another value', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    const plain = await server.call(`/pipelines/${id}/graph?statuses=none&rankdir=LR`);
    expect(plain.status).toBe(200);
    const svg = await plain.text();
    expect(svg).toContain('class="graph rankdir&#45;LR"');
    expect(svg).toMatch(/<g id="node&#45;draft" class="node status&#45;pending">/);
    expect(svg).toMatch(/<g id="node&#45;approve" class="node status&#45;pending">/);
    expect(svg).not.toContain('stroke-width="3.2"');
    const unknown = await server.call('/pipelines/2026-01-01T00-00-00Z-nope/graph?statuses=none');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    const wrong = await server.call(`/pipelines/${id}/graph?statuses=all`);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('use ?statuses=none') },
    });
  });

  it('runs two pipelines at once with separate run directories, contexts and questions', async () => {
    server = await startTestServer();
    const dot = await readFixture('review-gate.dot');
    const [first, second] = await Promise.all([
      server.startRun(dot, { context: { who: 'first' } }),
      server.startRun(dot, { context: { who: 'second' } }),
    ]);
    expect(first).not.toBe(second);
    const [firstQuestion, secondQuestion] = await Promise.all([
      waitForQuestion(server, first),
      waitForQuestion(server, second),
    ]);
    expect(await pendingQuestions(server, first)).toHaveLength(1);
    expect(await pendingQuestions(server, second)).toHaveLength(1);

    // The second run revises once, then approves; the first approves at once.
    await answer(server, second, secondQuestion.id, { value: 'R' });
    await answer(server, first, firstQuestion.id, { value: 'A' });
    await waitForState(server, first, 'success');
    const again = await waitFor(
      async () => (await pendingQuestions(server!, second)).find((entry) => entry.id !== secondQuestion.id),
      'the second question of the second run',
    );
    expect((await server.json<RunDetails>(`/pipelines/${second}`)).state).toBe('waiting');
    await answer(server, second, again.id, { value: 'approve' });
    const secondDone = await waitForState(server, second, 'success');
    expect(secondDone.completedNodes).toEqual(['start', 'draft', 'approve', 'done']);

    const firstContext = await server.json<{ context: Record<string, unknown> }>(
      `/pipelines/${first}/context`,
    );
    const secondContext = await server.json<{ context: Record<string, unknown> }>(
      `/pipelines/${second}/context`,
    );
    expect(firstContext.context.who).toBe('first');
    expect(secondContext.context.who).toBe('second');
    const visits = (runId: string) =>
      readFileSync(join(server!.runsDir, runId, 'events.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; nodeId?: string; runId: string })
        .filter((event) => event.type === 'stage.completed' && event.nodeId === 'draft');
    expect(visits(first)).toHaveLength(1);
    expect(visits(second)).toHaveLength(2);
    expect(visits(second).every((event) => event.runId === second)).toBe(true);
    expect(existsSync(join(server.runsDir, second, 'draft', 'visits', '1', 'prompt.md'))).toBe(true);
  });

  it('refuses answers that fit no option, and unknown question ids', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    const pending = await waitForQuestion(server, id);
    const wrong = await answer(server, id, pending.id, { value: 'X' });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_ANSWER');
    expect(body.error.message).toContain('"A" ([A] Approve), "R" ([R] Revise)');
    const unknown = await answer(server, id, 'nope:1', { value: 'A' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('QUESTION_NOT_FOUND');
    expect(await pendingQuestions(server, id)).toHaveLength(1);
  });

  it('answers a free-form question with text', async () => {
    server = await startTestServer();
    const id = await server.startRun(`digraph notes {
      start [shape=Mdiamond]
      ask [shape=hexagon, label="What should change?", human.input="text"]
      done [shape=Msquare]
      start -> ask -> done
    }`);
    const pending = await waitForQuestion(server, id);
    expect(pending.question.type).toBe('freeform');
    const empty = await answer(server, id, pending.id, { text: '  ' });
    expect(empty.status).toBe(400);
    expect((await answer(server, id, pending.id, { text: 'Rename the flag' })).status).toBe(200);
    await waitForState(server, id, 'success');
    const { context } = await server.json<{ context: Record<string, unknown> }>(`/pipelines/${id}/context`);
    expect(JSON.stringify(context)).toContain('Rename the flag');
  });

  it("takes the node's human.default_choice when nobody answers before its timeout", async () => {
    server = await startTestServer();
    const id = await server.startRun(`digraph timed {
      start [shape=Mdiamond]
      gate [shape=hexagon, label="Go on?", timeout="150ms", human.default_choice="done"]
      fix [label="Fix"]
      done [shape=Msquare]
      start -> gate
      gate -> fix [label="[F] Fix"]
      gate -> done [label="[D] Done"]
      fix -> done
    }`);
    const finished = await waitForState(server, id, 'success');
    expect(finished.completedNodes).toEqual(['start', 'gate', 'done']);
    const types = readFileSync(join(server.runsDir, id, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toContain('interview.timeout');
    expect(await pendingQuestions(server, id)).toEqual([]);
  });

  it('cancels a running pipeline, keeps its checkpoint, and resumes it', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    const cancelled = await server.call(`/pipelines/${id}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    // The answer is the stopped run, not the run as it was a moment before.
    expect(await cancelled.json()).toMatchObject({ id, state: 'cancelled', live: false, resumable: true });
    const stopped = await waitForState(server, id, 'cancelled');
    expect(stopped).toMatchObject({ live: false, resumable: true });
    const checkpoint = await server.json<{ state: string; next_node: string }>(`/pipelines/${id}/checkpoint`);
    // The engine keeps the last checkpoint as it was: the run resumes at the gate it was waiting at.
    expect(checkpoint).toMatchObject({ current_node: 'draft', next_node: 'approve' });
    const again = await server.call(`/pipelines/${id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);

    const resumed = await server.call(`/pipelines/${id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(((await resumed.json()) as RunSummary).live).toBe(true);
    const pending = await waitForQuestion(server, id);
    await answer(server, id, pending.id, { value: 'A' });
    const done = await waitForState(server, id, 'success');
    expect(done.completedNodes).toEqual(['start', 'draft', 'approve', 'done']);
    expect(readdirSync(server.runsDir)).toEqual([id]);
  });

  it('resumes a run only once when two clients ask at the same time', async () => {
    server = await startTestServer();
    const id = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, id);
    await server.call(`/pipelines/${id}/cancel`, { method: 'POST' });
    await waitForState(server, id, 'cancelled');
    const responses = await Promise.all([
      server.call(`/pipelines/${id}/resume`, { method: 'POST' }),
      server.call(`/pipelines/${id}/resume`, { method: 'POST' }),
    ]);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    await waitForQuestion(server, id);
    expect(await pendingQuestions(server, id)).toHaveLength(1);
  });

  it('refuses to resume a run that succeeded or is running, and unknown runs', async () => {
    server = await startTestServer();
    const finished = await server.startRun(
      'digraph one { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    );
    await waitForState(server, finished, 'success');
    const refused = await server.call(`/pipelines/${finished}/resume`, { method: 'POST' });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('RESUME_REFUSED');
    expect(body.error.message).toContain('already completed successfully');
    // In the API's terms: the run by its id, not the server's run directory.
    expect(body.error.message).toContain(`Cannot resume run "${finished}": `);
    expect(body.error.message).not.toContain(server.runsDir);

    const running = await server.startRun(await readFixture('review-gate.dot'));
    await waitForQuestion(server, running);
    const busy = await server.call(`/pipelines/${running}/resume`, { method: 'POST' });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('RUN_ALREADY_RUNNING');

    for (const path of ['/pipelines/nope', '/pipelines/..%2F..%2Fetc/context', '/pipelines/nope/events']) {
      const response = await server.call(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('RUN_NOT_FOUND');
    }
  });
});

describe('POST /pipelines/{id}/fork (the web UI\'s "Fork from here")', () => {
  const LINEAR = `digraph Linear {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    a [prompt="Step A"]
    b [prompt="Step B"]
    c [prompt="Step C"]
    start -> a -> b -> c -> exit
  }`;

  it("colours a fork's inherited parallel branches from the source run's stages before the fork point", async () => {
    server = await startTestServer();
    const source = await server.startRun(
      `digraph Fan {
        start [shape=Mdiamond]
        fan [shape=component]
        a1 [prompt="A one"]
        a2 [prompt="A two"]
        b1 [prompt="B one"]
        join [shape=tripleoctagon]
        report [prompt="Report"]
        done [shape=Msquare]
        start -> fan
        fan -> a1
        fan -> b1
        a1 -> a2 -> join
        b1 -> join
        join -> report -> done
      }`,
      { simulate: true },
    );
    await waitForState(server, source, 'success');
    const forked = await server.call(`/pipelines/${source}/fork`, { method: 'POST', json: { from: 'join' } });
    expect(forked.status).toBe(200);
    const fork = (await forked.json()) as RunSummary;
    const done = await waitForState(server, fork.id, 'success');
    expect(done.nodeStatuses).toMatchObject({
      fan: 'success',
      a1: 'success',
      a2: 'success',
      b1: 'success',
      join: 'success',
      report: 'success',
    });
    const svg = await (await server.call(`/pipelines/${fork.id}/graph`)).text();
    expect(svg).toMatch(/<g id="node&#45;a2" class="node status&#45;success">/);
  });

  it('starts a new run after a completed stage, with the same or an edited DOT, and leaves the source run alone', async () => {
    server = await startTestServer();
    const info = await server.json<{ capabilities: { fork: boolean } }>('/server');
    expect(info.capabilities.fork).toBe(true);
    const source = await server.startRun(LINEAR, { simulate: true });
    await waitForState(server, source, 'success');
    const checkpointBefore = readFileSync(join(server.runsDir, source, 'checkpoint.json'), 'utf8');

    const forked = await server.call(`/pipelines/${source}/fork`, { method: 'POST', json: { from: 'a' } });
    expect(forked.status).toBe(200);
    const fork = (await forked.json()) as RunSummary;
    expect(fork.id).not.toBe(source);
    const done = await waitForState(server, fork.id, 'success');
    expect(done.nodeStatuses).toMatchObject({ b: 'success', c: 'success' });
    // The source run's DOT, as the fork editor shows it.
    const sourceText = await server.call(`/pipelines/${source}/source`);
    expect(sourceText.headers.get('content-type')).toContain('text/vnd.graphviz');
    expect(await sourceText.text()).toBe(LINEAR);
    // Its details say where it came from, and keep the inherited stages' statuses.
    expect(done.forkedFrom).toEqual({ runId: source, node: 'a', visit: 1 });
    expect(done.nodeStatuses).toMatchObject({ start: 'success', a: 'success' });
    const manifest = JSON.parse(readFileSync(join(server.runsDir, fork.id, 'manifest.json'), 'utf8'));
    expect(manifest.forked_from).toMatchObject({ run_id: source });
    // Only the stages after `a` ran in the fork.
    expect(existsSync(join(server.runsDir, fork.id, 'a'))).toBe(false);
    expect(existsSync(join(server.runsDir, fork.id, 'b', 'status.json'))).toBe(true);
    expect(readFileSync(join(server.runsDir, source, 'checkpoint.json'), 'utf8')).toBe(checkpointBefore);

    // An edited graph routes the forked stage's outcome its own way: a -> c, no b.
    const edited = LINEAR.replace('start -> a -> b -> c -> exit', 'start -> a -> c -> exit').replace(
      '    b [prompt="Step B"]\n',
      '',
    );
    const rerouted = await server.call(`/pipelines/${source}/fork`, {
      method: 'POST',
      json: { from: 'a', dot: edited },
    });
    expect(rerouted.status).toBe(200);
    const second = (await rerouted.json()) as RunSummary;
    await waitForState(server, second.id, 'success');
    expect(existsSync(join(server.runsDir, second.id, 'b'))).toBe(false);
    expect(existsSync(join(server.runsDir, second.id, 'c', 'status.json'))).toBe(true);
  });

  /**
   * A run directory as `attractor run` leaves it (the engine's run, with the DOT file it ran from named in its
   * manifest and no records of a server) of `dot` (default: LINEAR), in a fresh runs directory. Returns the runs
   * directory and the DOT path.
   */
  async function runOutsideTheServer(dot = LINEAR): Promise<{ runsDir: string; dotPath: string }> {
    const home = await mkdtemp(join(tmpdir(), 'attractor-cli-run-'));
    const dotPath = join(home, 'linear.dot');
    writeFileSync(dotPath, dot);
    const runsDir = join(home, 'runs');
    const { graph } = prepareGraph(dot, { filename: dotPath });
    const result = await runPipeline({
      graph: graph!,
      registry: createDefaultRegistry(),
      backend: createSimulationBackend(),
      logsRoot: join(runsDir, 'cli-run'),
      sourcePath: dotPath,
    });
    expect(result.status).toBe('success');
    expect(existsSync(join(runsDir, 'cli-run', 'server-run.json'))).toBe(false);
    return { runsDir, dotPath };
  }

  it('forks a run this server did not start (attractor run) from the DOT file its manifest names', async () => {
    const { runsDir, dotPath } = await runOutsideTheServer();
    const simulated: boolean[] = [];
    server = await startTestServer({
      runsDir,
      backendFactory: ({ simulate }) => {
        simulated.push(simulate);
        return createSimulationBackend();
      },
    });
    const checkpointBefore = readFileSync(join(runsDir, 'cli-run', 'checkpoint.json'), 'utf8');
    // Resuming it here is still refused (the CLI resumes it); forking only reads it.
    const resume = await server.call('/pipelines/cli-run/resume', { method: 'POST' });
    expect(resume.status).toBe(409);
    const forked = await server.call('/pipelines/cli-run/fork', { method: 'POST', json: { from: 'a' } });
    expect(forked.status).toBe(200);
    const fork = (await forked.json()) as RunSummary;
    const done = await waitForState(server, fork.id, 'success');
    expect(done.forkedFrom).toEqual({ runId: 'cli-run', node: 'a', visit: 1 });
    expect(done.nodeStatuses).toMatchObject({ a: 'success', b: 'success', c: 'success' });
    expect(existsSync(join(runsDir, fork.id, 'a'))).toBe(false);
    expect(existsSync(join(runsDir, fork.id, 'b', 'status.json'))).toBe(true);
    expect(readFileSync(join(runsDir, 'cli-run', 'checkpoint.json'), 'utf8')).toBe(checkpointBefore);
    // The fork is this server's run: its DOT is kept (for "Fork from here" with edits, and resume).
    expect(await (await server.call(`/pipelines/${fork.id}/source`)).text()).toBe(LINEAR);
    // Not simulated unless asked: the source run's choice is not known here.
    expect(simulated).toEqual([false]);
    const asked = await server.call('/pipelines/cli-run/fork', {
      method: 'POST',
      json: { from: 'b', simulate: true },
    });
    expect(asked.status).toBe(200);
    await waitForState(server, ((await asked.json()) as RunSummary).id, 'success');
    expect(simulated).toEqual([false, true]);

    // Without its DOT file the fork needs the DOT in the request, and says so.
    rmSync(dotPath);
    const before = readdirSync(runsDir).sort();
    const refused = await server.call('/pipelines/cli-run/fork', { method: 'POST', json: { from: 'a' } });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('FORK_REFUSED');
    expect(body.error.message).toContain(dotPath);
    expect(body.error.message).toContain('"dot"');
    expect(body.error.message).not.toContain('resume');
    expect(readdirSync(runsDir).sort()).toEqual(before);
    const withDot = await server.call('/pipelines/cli-run/fork', {
      method: 'POST',
      json: { from: 'a', dot: LINEAR },
    });
    expect(withDot.status).toBe(200);
    await waitForState(server, ((await withDot.json()) as RunSummary).id, 'success');
  });

  it('refuses to fork a run this server did not start from its DOT file once that file was edited (SOURCE_CHANGED), and forks it with the DOT sent', async () => {
    const { runsDir, dotPath } = await runOutsideTheServer();
    server = await startTestServer({ runsDir });
    // Edited since the run (a -> c, no b): forking from the file would start another graph than the run ran.
    writeFileSync(
      dotPath,
      LINEAR.replace('start -> a -> b -> c -> exit', 'start -> a -> c -> exit').replace(
        '    b [prompt="Step B"]\n',
        '',
      ),
    );
    const before = readdirSync(runsDir).sort();
    const refused = await server.call('/pipelines/cli-run/fork', { method: 'POST', json: { from: 'a' } });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SOURCE_CHANGED');
    expect(body.error.message).toContain(dotPath);
    expect(body.error.message).toContain('changed since the run');
    expect(body.error.message).toContain('"dot"');
    expect(body.error.message).not.toMatch(/\n\s+at /);
    expect(readdirSync(runsDir).sort()).toEqual(before);

    // The DOT sent in the request is how a run forks with an edited graph: the fork runs it (a -> c, no b).
    const withDot = await server.call('/pipelines/cli-run/fork', {
      method: 'POST',
      json: { from: 'a', dot: readFileSync(dotPath, 'utf8'), simulate: true },
    });
    expect(withDot.status).toBe(200);
    const edited = (await withDot.json()) as RunSummary;
    await waitForState(server, edited.id, 'success');
    expect(existsSync(join(runsDir, edited.id, 'b'))).toBe(false);
    expect(existsSync(join(runsDir, edited.id, 'c', 'status.json'))).toBe(true);

    // The file restored (the run's graph again): it forks from the file as before.
    writeFileSync(dotPath, LINEAR);
    const restored = await server.call('/pipelines/cli-run/fork', {
      method: 'POST',
      json: { from: 'a', simulate: true },
    });
    expect(restored.status).toBe(200);
    const fork = (await restored.json()) as RunSummary;
    await waitForState(server, fork.id, 'success');
    expect(existsSync(join(runsDir, fork.id, 'b', 'status.json'))).toBe(true);
  });

  it('draws the graph of a run this server did not start from its DOT file only while that file holds the graph the run ran (409 SOURCE_CHANGED once edited)', async () => {
    const { runsDir, dotPath } = await runOutsideTheServer();
    // Edited before the server first reads it: drawing the file would show another graph than the run ran.
    writeFileSync(dotPath, LINEAR.replace('start -> a -> b -> c -> exit', 'start -> a -> c -> exit'));
    server = await startTestServer({ runsDir });
    const refused = await server.call('/pipelines/cli-run/graph');
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('SOURCE_CHANGED');
    expect(body.error.message).toContain(dotPath);
    expect(body.error.message).not.toMatch(/\n\s+at /);
    // The run itself is still shown (its stages from the checkpoint).
    const details = await server.json<RunDetails>('/pipelines/cli-run');
    expect(details.state).toBe('success');
    expect(details.completedNodes).toEqual(expect.arrayContaining(['a', 'b', 'c']));

    // Restored: the graph the run ran, with b, drawn by status.
    writeFileSync(dotPath, LINEAR);
    const drawn = await server.call('/pipelines/cli-run/graph');
    expect(drawn.status).toBe(200);
    expect(await drawn.text()).toMatch(/<g id="node&#45;b" class="node status&#45;success">/);
    // Moved away: 404 naming the file.
    const { runsDir: otherRunsDir, dotPath: otherDotPath } = await runOutsideTheServer();
    rmSync(otherDotPath);
    await server.close();
    server = await startTestServer({ runsDir: otherRunsDir });
    const gone = await server.call('/pipelines/cli-run/graph');
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toContain(otherDotPath);
  });

  /** Expects `GET /pipelines/cli-run/source` to answer `status` and `code` with a message holding `parts`, no stack. */
  async function expectSourceRefused(status: number, code: string, parts: readonly string[]): Promise<void> {
    const response = await server!.call('/pipelines/cli-run/source');
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    for (const part of parts) expect(body.error.message).toContain(part);
    expect(body.error.message).not.toMatch(/\n\s+at /);
  }

  it('serves the DOT file a run this server did not start ran from, while it is unchanged (masked); 404/409 naming the file once moved or edited', async () => {
    const secret = 'sk-source-secret-51c0e9';
    const dot = LINEAR.replace('Step B', `Step B with ${secret}`);
    const { runsDir, dotPath } = await runOutsideTheServer(dot);
    server = await startTestServer({ runsDir, secretValues: [secret] });
    const served = await server.call('/pipelines/cli-run/source');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('text/vnd.graphviz');
    const text = await served.text();
    expect(text).toBe(dot.replace(secret, '[REDACTED]'));
    expect(text).not.toContain(secret);

    // Edited since the run: not the pipeline the run ran.
    writeFileSync(dotPath, dot.replace('start -> a -> b -> c -> exit', 'start -> a -> c -> exit'));
    await expectSourceRefused(409, 'SOURCE_CHANGED', [dotPath, 'changed since the run']);
    // The same text again (even rewritten) is the run's graph again.
    writeFileSync(dotPath, dot);
    expect((await server.call('/pipelines/cli-run/source')).status).toBe(200);

    // Moved away: 404 naming the file.
    rmSync(dotPath);
    await expectSourceRefused(404, 'NOT_FOUND', [dotPath, 'no longer exists']);
    expect((await server.call('/pipelines/no-such-run/source')).status).toBe(404);
  });

  it('refuses a stage the source run never completed, and leaves no run directory behind', async () => {
    server = await startTestServer();
    const source = await server.startRun(LINEAR, { simulate: true });
    await waitForState(server, source, 'success');
    const before = readdirSync(server.runsDir).sort();
    const refused = await server.call(`/pipelines/${source}/fork`, { method: 'POST', json: { from: 'zzz' } });
    expect(refused.status).toBe(409);
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('FORK_REFUSED');
    expect(error.message).toMatch(
      new RegExp(`^Cannot fork run "${source}" at zzz: it has no checkpoint after that stage`),
    );
    expect(error.message).not.toContain(server.runsDir);
    expect(readdirSync(server.runsDir).sort()).toEqual(before);
    const bad = await server.call(`/pipelines/${source}/fork`, { method: 'POST', json: {} });
    expect(bad.status).toBe(400);
  });
});
