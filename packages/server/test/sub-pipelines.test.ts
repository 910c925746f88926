/**
 * Sub-pipeline nodes (spec §9.4) of pipelines started from the pipelines directory: their `graph_ref` files are
 * validated before the run starts, as `attractor run` does, and found next to the parent file when they run.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetails, RunSummary } from '../src/index.js';
import { openEvents, startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type ErrorBody = {
  error: { code: string; message: string; diagnostics?: { rule: string; span?: { filename?: string } }[] };
};

const parent = (ref: string) => `digraph Parent {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  checks [type="subgraph", graph_ref="${ref}"]
  start -> checks -> exit
}
`;

const child = `digraph Checks {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  review [prompt="Review the change"]
  start -> review -> exit
}
`;

/** A root with `pipelines/` (holding `files`) and an empty `work/` used as the runs' working directory. */
async function layout(files: Readonly<Record<string, string>>) {
  const root = await mkdtemp(join(tmpdir(), 'attractor-server-subgraph-'));
  const pipelinesDir = join(root, 'pipelines');
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(pipelinesDir, name, '..'), { recursive: true });
    await writeFile(join(pipelinesDir, name), text);
  }
  const workdir = join(root, 'work');
  await mkdir(workdir);
  return { root, pipelinesDir, workdir };
}

async function start(file: string): Promise<{ status: number; body: ErrorBody & { id?: string } }> {
  const response = await server!.call('/pipelines', { method: 'POST', json: { file, simulate: true } });
  return { status: response.status, body: (await response.json()) as ErrorBody & { id?: string } };
}

describe('sub-pipelines of the pipelines directory (spec §9.4)', () => {
  it('refuses a pipeline whose graph_ref file does not exist with 400 at file:line:col, and creates no run', async () => {
    const { pipelinesDir, workdir } = await layout({ 'main/pipeline.dot': parent('../checks/pipeline.dot') });
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_PIPELINE');
    expect(body.error.message).toContain(
      `main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": graph_ref "../checks/pipeline.dot" does not exist (looked for ${join(pipelinesDir, 'checks', 'pipeline.dot')}).`,
    );
    expect(body.error.diagnostics?.map((diagnostic) => diagnostic.rule)).toEqual(['subgraph_ref']);
    expect(body.error.diagnostics?.[0]?.span?.filename).toBe('main/pipeline.dot');
    expect(await readdir(server.runsDir)).toEqual([]);
  });

  it('refuses a graph_ref that is invalid itself, quoting its first error', async () => {
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child.replace('review -> exit', 'review -> exti'),
    });
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.message).toContain(
      `main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": the sub-pipeline "../checks/pipeline.dot" has 1 error; the first: ${join(pipelinesDir, 'checks', 'pipeline.dot')}:5:`,
    );
    expect(body.error.message).toContain('Did you mean "exit"?');
  });

  it('refuses a graph_ref outside the pipelines directory without reading it', async () => {
    const { root, pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../../outside.dot'),
    });
    await writeFile(join(root, 'outside.dot'), child);
    server = await startTestServer({ pipelinesDir, workdir });
    const { status, body } = await start('main/pipeline.dot');
    expect(status).toBe(400);
    expect(body.error.message).toContain(
      `Subgraph node "checks": graph_ref "../../outside.dot" cannot be read (${join(root, 'outside.dot')}: it is outside the pipelines directory; this server runs sub-pipelines only from ${pipelinesDir}).`,
    );
  });

  it('runs a valid sub-pipeline from next to the parent file, whatever the working directory', async () => {
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child,
    });
    // A subgraph node may run tools of its child, which only a server with --allow-tools accepts.
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true });
    const { status, body } = await start('main/pipeline.dot');
    expect(status, JSON.stringify(body)).toBe(201);
    const details = await waitFor(async () => {
      const run = await server!.json<RunDetails>(`/pipelines/${body.id}`);
      return run.state === 'running' || run.state === 'waiting' ? undefined : run;
    }, 'the run to end');
    expect(details.failureReason).toBeUndefined();
    expect(details.state).toBe('success');
    expect(details.completedNodes).toEqual(['start', 'checks', 'exit']);
  });

  it('serves a child run by its path (?child=): details, live events, graph, stage files and context', async () => {
    const gated = `digraph Checks {
      start [shape=Mdiamond]
      exit  [shape=Msquare]
      review [prompt="Review the change"]
      ok [shape=hexagon, label="Ship it?"]
      start -> review -> ok
      ok -> exit [label="[Y] Yes"]
      ok -> review [label="[N] No"]
    }`;
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': gated,
    });
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true });
    const { body } = await start('main/pipeline.dot');
    const id = body.id!;
    const [pending] = await waitFor(async () => {
      const { questions } = await server!.json<{ questions: { id: string }[] }>(`/pipelines/${id}/questions`);
      return questions.length > 0 ? questions : undefined;
    }, 'the child gate');
    const child = encodeURIComponent('checks/child');

    // While the child waits at its gate: its own details (the top run's id, the child's graph and statuses).
    const details = await server.json<RunDetails>(`/pipelines/${id}?child=${child}`);
    expect(details).toMatchObject({
      id,
      graphName: 'Checks',
      live: true,
      resumable: false,
      state: 'waiting',
      waitingNodes: ['ok'],
      child: { path: 'checks/child', runId: 'child', parentNode: 'checks' },
    });
    expect(details.nodeStatuses).toMatchObject({ start: 'success', review: 'success', ok: 'running' });
    const svg = await (await server.call(`/pipelines/${id}/graph?child=${child}`)).text();
    expect(svg).toMatch(/<g id="node&#45;review" class="node status&#45;success">/);
    expect(svg).toMatch(/<g id="node&#45;ok" class="node status&#45;running[^"]* waiting">/);

    // Its event stream replays what the child has not written to its events.jsonl yet, with the child's seq as id.
    const stream = await openEvents(server, id, undefined, 'checks/child');
    expect(stream.status).toBe(200);
    await stream.until((message) => message.data.includes('"interview.started"'), 'the gate event');
    const seen = stream.events();
    expect(seen.every((event) => event.runId === 'child' && event.branchPath?.[0] === 'child:checks')).toBe(
      true,
    );
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_, index) => index + 1));
    // The parent's stream, opened now, replays the child's events so far (from memory, as the file lags) once.
    const parentStream = await openEvents(server, id);
    await parentStream.until((message) => message.data.includes('"interview.started"'), 'the child gate');
    const answer = await server.call(`/pipelines/${id}/questions/${pending!.id}/answer`, {
      method: 'POST',
      json: { value: 'Y' },
    });
    expect(answer.status).toBe(200);
    const end = await stream.until((message) => message.event === 'end', 'the end of the child stream');
    expect(JSON.parse(end.data)).toEqual({ state: 'success' });
    expect(stream.events().at(-1)).toMatchObject({ type: 'pipeline.completed', runId: 'child' });
    await parentStream.until((message) => message.event === 'end', 'the end of the run');
    const childSeqs = parentStream
      .events()
      .filter((event) => event.runId === 'child')
      .map((event) => event.seq);
    expect(childSeqs).toEqual(childSeqs.map((_, index) => index + 1));
    parentStream.close();

    // Its stage files and context.
    const stage = await server.json<{ files: { name: string }[] }>(
      `/pipelines/${id}/stage?dir=review&child=${child}`,
    );
    expect(stage.files.map((file) => file.name)).toContain('prompt.md');
    const prompt = await server.call(`/pipelines/${id}/stage-file?dir=review&name=prompt.md&child=${child}`);
    expect(await prompt.text()).toContain('Review the change');
    const context = await server.json<{ context: Record<string, unknown> }>(
      `/pipelines/${id}/context?child=${child}`,
    );
    expect(context.context['human.gate.selected']).toBe('Y');

    // Not a child path: 400; no child there: 404.
    for (const [path, status, code] of [
      ['../other/child', 400, 'INVALID_REQUEST'],
      ['checks', 400, 'INVALID_REQUEST'],
      ['exit/child', 404, 'NOT_FOUND'],
    ] as const) {
      const response = await server.call(`/pipelines/${id}?child=${encodeURIComponent(path)}`);
      expect(response.status, path).toBe(status);
      expect(((await response.json()) as ErrorBody).error.code).toBe(code);
    }
    stream.close();
  });

  it("draws a child run's graph only while its DOT file holds the graph the child ran (409 SOURCE_CHANGED)", async () => {
    const { pipelinesDir, workdir } = await layout({
      'main/pipeline.dot': parent('../checks/pipeline.dot'),
      'checks/pipeline.dot': child,
    });
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true });
    const { status, body } = await start('main/pipeline.dot');
    expect(status, JSON.stringify(body)).toBe(201);
    const id = body.id!;
    await waitFor(async () => {
      const run = await server!.json<RunDetails>(`/pipelines/${id}`);
      return run.state === 'success' ? run : undefined;
    }, 'the run to end');
    const childFile = join(pipelinesDir, 'checks', 'pipeline.dot');
    const childPath = encodeURIComponent('checks/child');
    // Edited after the run (a new stage), before the graph was ever drawn: not the graph the child ran.
    await writeFile(childFile, child.replace('review -> exit', 'review -> lint -> exit'));
    await server.close();
    server = await startTestServer({ pipelinesDir, workdir, allowTools: true, runsDir: server.runsDir });
    const changed = await server.call(`/pipelines/${id}/graph?child=${childPath}`);
    expect(changed.status).toBe(409);
    const error = ((await changed.json()) as ErrorBody).error;
    expect(error.code).toBe('SOURCE_CHANGED');
    expect(error.message).toContain(
      `The DOT file ${childFile} of child run "checks/child" was changed since the run`,
    );
    expect(error.message).toContain('Restore that version of the file to see the graph.');
    // The child's details do not need its graph's drawing.
    expect((await server.json<RunDetails>(`/pipelines/${id}?child=${childPath}`)).state).toBe('success');

    await writeFile(childFile, child);
    const restored = await server.call(`/pipelines/${id}/graph?child=${childPath}`);
    expect(restored.status).toBe(200);
    expect(await restored.text()).toMatch(/<g id="node&#45;review" class="node status&#45;success">/);
  });
});

describe('forks of a run this server did not start (attractor run) with sub-pipelines', () => {
  /** `parent(ref)` with a stage before the sub-pipeline, so a fork from it runs the sub-pipeline again. */
  const planned = (ref: string) =>
    parent(ref).replace('start -> checks', 'plan [prompt="Plan the checks"]\n  start -> plan -> checks');

  /** Waits until run `id` has ended; returns its details. */
  const ended = (id: string) =>
    waitFor(async () => {
      const run = await server!.json<RunDetails>(`/pipelines/${id}`);
      return run.state === 'running' || run.state === 'waiting' ? undefined : run;
    }, `run ${id} to end`);

  /** Forks `cli-run` from `plan` (with `body`'s extras) and waits until the fork has ended. */
  const fork = async (from: string, body: Record<string, unknown> = {}) => {
    const response = await server!.call(`/pipelines/${from}/fork`, {
      method: 'POST',
      json: { from: 'plan', simulate: true, ...body },
    });
    const summary = (await response.json()) as RunSummary & ErrorBody;
    expect(response.status, JSON.stringify(summary)).toBe(200);
    return ended(summary.id);
  };

  it("resolves graph_ref next to the original DOT file, as the run did, in a fork, an edited fork and a fork's fork", async () => {
    // `attractor run project/flows/main.dot` from another directory: graph_ref is relative to main.dot.
    const root = await mkdtemp(join(tmpdir(), 'attractor-server-fork-subgraph-'));
    const flows = join(root, 'project', 'flows');
    await mkdir(join(flows, 'checks'), { recursive: true });
    const dotPath = join(flows, 'main.dot');
    const dot = planned('checks/pipeline.dot');
    await writeFile(dotPath, dot);
    await writeFile(join(flows, 'checks', 'pipeline.dot'), child);
    const cliWorkdir = join(root, 'elsewhere');
    const serverWorkdir = join(root, 'server-work');
    await mkdir(cliWorkdir);
    await mkdir(serverWorkdir);
    const runsDir = join(root, 'runs');
    const result = await runPipeline({
      graph: prepareGraph(dot, { filename: dotPath }).graph!,
      registry: createDefaultRegistry(),
      backend: createSimulationBackend(),
      logsRoot: join(runsDir, 'cli-run'),
      sourcePath: dotPath,
      workdir: cliWorkdir,
    });
    expect(result.status).toBe('success');
    expect(existsSync(join(runsDir, 'cli-run', 'checks', 'child', 'manifest.json'))).toBe(true);

    server = await startTestServer({ runsDir, workdir: serverWorkdir, allowTools: true });
    const forked = await fork('cli-run');
    expect(forked.failureReason).toBeUndefined();
    expect(forked.state).toBe('success');
    expect(forked.nodeStatuses).toMatchObject({ plan: 'success', checks: 'success', exit: 'success' });
    expect(existsSync(join(runsDir, forked.id, 'checks', 'child', 'review', 'status.json'))).toBe(true);

    // An edited DOT (the web UI's edit-and-fork) still finds its graph_ref next to the original file.
    const edited = await fork('cli-run', { dot: dot.replace('Plan the checks', 'Plan the checks again') });
    expect(edited.failureReason).toBeUndefined();
    expect(edited.state).toBe('success');
    // So does a fork of the fork (a run of this server now).
    const again = await fork(forked.id);
    expect(again.failureReason).toBeUndefined();
    expect(again.state).toBe('success');
    expect(existsSync(join(runsDir, again.id, 'checks', 'child', 'review', 'status.json'))).toBe(true);
  });
});
