/**
 * Issue 18 "`attractor serve` on a shared store", with real processes: a server (`attractor serve --store --queue`)
 * and two `attractor worker`s on a real PostgreSQL (run store and queue). Runs started through the API execute on a
 * worker; the API shows their stages and streams their events (SSE, Last-Event-ID replay); a gate is answered
 * through the server while its run is suspended; cancel reaches the worker; a restarted server shows and streams
 * the runs the workers go on executing.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { catalogRunStores, connectRunQueue } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { launchBrowser, screenshot } from './helpers/browser.js';
import { attractor, attractorWorker, FIXTURES, temporaryDirectory, waitForBanner } from './helpers/cli.js';

const available = postgresAvailableForTests('attractor serve on a shared store tests');

const RELAY = `digraph relay {
  graph [goal="relay the baton"]
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="sleep 0.3; echo a >> trail.txt"]
  plan [prompt="Plan the next leg"]
  b [shape=parallelogram, tool_command="sleep 1; echo b >> trail.txt"]
  done [shape=Msquare]
  start -> a -> plan -> b -> done
}`;
const SAY = `digraph say {
  start [shape=Mdiamond]
  say [shape=parallelogram, tool_command="echo hello from a worker"]
  done [shape=Msquare]
  start -> say -> done
}`;
const GATE = readFileSync(join(FIXTURES, 'ship-gate.dot'), 'utf8');
const SLOW = `digraph slow {
  start [shape=Mdiamond]
  wait [shape=parallelogram, tool_command="sleep 600"]
  done [shape=Msquare]
  start -> wait -> done
}`;

/** A fan-out whose branch `bad` fails: the join (wait_all) is a partial success and the run goes on to succeed. */
const SHAKY = `digraph shaky {
  start [shape=Mdiamond]
  fan [shape=component]
  good [shape=parallelogram, tool_command="echo good"]
  bad [shape=parallelogram, tool_command="echo bad; exit 3"]
  join [shape=tripleoctagon]
  done [shape=Msquare]
  start -> fan
  fan -> good -> join
  fan -> bad -> join
  join -> done
}`;
/** A stage that sleeps until the file `flag` exists (checked when it starts). */
const PAUSE = (flag: string) => `digraph pause {
  start [shape=Mdiamond]
  step [shape=parallelogram, tool_command="test -f '${flag}' || sleep 600"]
  done [shape=Msquare]
  start -> step -> done
}`;

/** Resolves once `read()` returns true, polling every 100 ms. */
async function until(read: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await read())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** Reads an SSE stream until an `end` message, or `enough(messages)` (or the timeout), parsed into messages. */
async function readSse(
  url: string,
  headers: Record<string, string>,
  timeoutMs = 60_000,
  enough: (messages: readonly SseMessage[]) => boolean = () => false,
): Promise<SseMessage[]> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const messages: SseMessage[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      end = text.indexOf('\n\n');
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
      }
      if (fields.data === undefined) continue;
      messages.push({
        data: fields.data,
        ...(fields.id === undefined ? {} : { id: fields.id }),
        ...(fields.event === undefined ? {} : { event: fields.event }),
      });
    }
    if (messages.some((message) => message.event === 'end') || enough(messages)) {
      await reader.cancel();
      break;
    }
  }
  return messages;
}

/** A value the servers mask (their environment names it `CHILD_VIEW_TOKEN`) and the workers do not know. */
const CHILD_SECRET = 'child-view-secret-5d81c2';
/** A parent run with a parallel block and a sub-pipeline (`checks`) whose child has a parallel block of its own. */
const FAMILY = (childPath: string) => `digraph family {
  graph [goal="check a change in parallel, then in a sub-pipeline"]
  start [shape=Mdiamond]
  fan [shape=component, label="Fan out"]
  a1 [shape=parallelogram, tool_command="echo a1 checked"]
  b1 [shape=parallelogram, tool_command="echo b1 checked"]
  join [shape=tripleoctagon]
  checks [type="subgraph", graph_ref="${childPath}"]
  done [shape=Msquare]
  start -> fan
  fan -> a1 -> join
  fan -> b1 -> join
  join -> checks -> done
}`;
const CHECKS = `digraph checks {
  start [shape=Mdiamond]
  review [prompt="Review the change"]
  cfan [shape=component]
  x [shape=parallelogram, tool_command="sleep 0.5; echo x ran in the child with ${CHILD_SECRET}"]
  y [shape=parallelogram, tool_command="echo y ran in the child"]
  cjoin [shape=tripleoctagon]
  exit [shape=Msquare]
  start -> review -> cfan
  cfan -> x -> cjoin
  cfan -> y -> cjoin
  cjoin -> exit
}`;

/**
 * A response body with what differs between two runs of one pipeline replaced or left out: the run id, times, and
 * the sizes of `status.json` (it names the run's directory or store key) and `stdout.txt` (a local run stores it
 * masked; a worker that does not know the server's secret stores it as printed, and the server masks it when served).
 */
function comparable(value: unknown, runId: string): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(runId, '<run>'), (key, item: unknown) => {
    if (['startedAt', 'endedAt', 'durationMs', 'asOf', 'timestamp', 'id'].includes(key)) return undefined;
    const name = (item as { name?: unknown } | null)?.name;
    if (name === 'status.json' || name === 'stdout.txt') return { name };
    return item;
  });
}

describe.skipIf(!available)('attractor serve on a shared store (issue 18)', () => {
  let postgres: PostgresTestServer;
  let dir: string;
  let env: Record<string, string>;
  const workers: ReturnType<typeof attractor>[] = [];
  let server: ReturnType<typeof attractor> | undefined;
  let url: string;
  const token = 'shared-store-test';
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

  const startWorker = () => attractorWorker(dir, env);
  const localToken = 'local-store-test';
  const localHeaders = { ...headers, Authorization: `Bearer ${localToken}` };
  /** Starts a local server (its own runs directory, runs executed in its process): what the shared store must match. */
  const serveLocally = () =>
    attractor(
      [
        'serve',
        '--port',
        '0',
        '--token',
        localToken,
        '--allow-tools',
        '--runs-dir',
        join(dir, 'local-runs'),
        '--workdir',
        dir,
      ],
      { cwd: dir, env: { CHILD_VIEW_TOKEN: CHILD_SECRET } },
    );
  /** Starts `attractor serve` on `port` (0: any free one). */
  const startServe = async (port = 0): Promise<void> => {
    // The servers know a secret the workers do not: what a stage prints with it is masked when served.
    server = attractor(['serve', '--port', String(port), '--token', token, '--allow-tools'], {
      cwd: dir,
      env: { ...env, CHILD_VIEW_TOKEN: CHILD_SECRET },
    });
    ({ url } = await waitForBanner(server));
  };
  const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url}${path}`, { ...init, headers });
    return { status: response.status, body: (await response.json()) as T };
  };
  const start = async (dot: string): Promise<string> => {
    const { status, body } = await api<{ id: string }>('/pipelines', {
      method: 'POST',
      body: JSON.stringify({ dot, simulate: true }),
    });
    expect(status).toBe(201);
    return body.id;
  };
  const details = async (id: string) =>
    (
      await api<{
        state: string;
        nodeStatuses: Record<string, string>;
        completedNodes: string[];
        stages: { nodeId: string }[];
      }>(`/pipelines/${id}`)
    ).body;

  /**
   * Runs `dot` (read from `dotPath`) with the engine straight into the store as run `name`, as an embedder's
   * runPipeline with the catalog's stores writes it: a run the queue never saw.
   */
  const runIntoStore = async (name: string, dot: string, dotPath: string): Promise<void> => {
    const catalog = createPostgresRunCatalog({ connectionString: postgres.url });
    const root = join(dir, 'engine-runs');
    try {
      const result = await runPipeline({
        graph: prepareGraph(dot, { filename: dotPath }).graph!,
        registry: createDefaultRegistry(),
        backend: createSimulationBackend(),
        logsRoot: join(root, name),
        sourcePath: dotPath,
        createRunStore: catalogRunStores({ catalog, root }),
      });
      expect(result.status).toBe('success');
    } finally {
      await catalog.close();
    }
  };

  beforeAll(async () => {
    postgres = await startPostgresServer();
    dir = await temporaryDirectory('attractor-serve-shared-');
    // With a queue key: the server signs what it enqueues, and the workers run only signed runs.
    env = {
      ATTRACTOR_QUEUE_URL: postgres.url,
      ATTRACTOR_STORE_URL: postgres.url,
      ATTRACTOR_QUEUE_KEY: 'serve-shared-store-queue-key-0123',
    };
    for (let index = 0; index < 2; index += 1) workers.push(startWorker());
    await startServe();
  }, 120_000);
  afterAll(async () => {
    server?.kill('SIGTERM');
    await server;
    for (const worker of workers) worker.kill('SIGTERM');
    await Promise.all(workers);
    await postgres?.stop();
  }, 60_000);

  it('a run started through the API executes on a worker; the API shows its stages and streams its events with Last-Event-ID replay', async () => {
    // The runs list follows the run live (GET /events).
    const changes = new AbortController();
    const changesResponse = await fetch(`${url}/events`, { headers, signal: changes.signal });
    let changesSoFar = '';
    const changeText = (async () => {
      let text = '';
      const reader = changesResponse.body!.pipeThrough(new TextDecoderStream()).getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += value;
          changesSoFar = text;
        }
      } catch {
        // aborted below
      }
      return text;
    })();
    const id = await start(RELAY);
    const list = await api<{ pipelines: { id: string }[] }>('/pipelines');
    expect(list.body.pipelines.map((run) => run.id)).toContain(id);
    expect((await api('/pipelines/no-such-run')).status).toBe(404);
    expect((await fetch(`${url}/pipelines/no-such-run/events`, { headers })).status).toBe(404);

    const all = await readSse(`${url}/pipelines/${id}/events`, headers);
    const own = all.filter((message) => message.id !== undefined);
    expect(own.map((message) => Number(message.id))).toEqual(own.map((_, index) => index + 1));
    const types = own.map((message) => (JSON.parse(message.data) as { type: string }).type);
    expect(types[0]).toBe('pipeline.started');
    expect(types.at(-1)).toBe('pipeline.completed');
    expect(JSON.parse(all.at(-1)!.data)).toEqual({ state: 'success' });

    const after = 3;
    const replay = await readSse(`${url}/pipelines/${id}/events`, {
      ...headers,
      'Last-Event-ID': String(after),
    });
    expect(replay.filter((message) => message.id !== undefined).map((message) => message.id)).toEqual(
      own.slice(after).map((message) => message.id),
    );

    const shown = await details(id);
    expect(shown.state).toBe('success');
    expect(shown.nodeStatuses).toMatchObject({ a: 'success', plan: 'success', b: 'success' });
    expect(shown.stages.map((stage) => stage.nodeId)).toEqual(expect.arrayContaining(['a', 'plan', 'b']));
    expect(await readFile(join(dir, 'work', id, 'trail.txt'), 'utf8')).toBe('a\nb\n');
    const checkpoint = await api<{ completed_nodes: string[] }>(`/pipelines/${id}/checkpoint`);
    expect(checkpoint.body.completed_nodes).toEqual(expect.arrayContaining(['a', 'plan', 'b']));

    // The runs list announces the run's end too: wait for that message, then stop listening.
    /** The states the runs list announced for this run, from its complete messages. */
    const announced = (text: string): string[] =>
      text
        .split('\n\n')
        .slice(0, -1)
        .filter((block) => block.startsWith('event: run'))
        .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { id: string; state: string })
        .filter((run) => run.id === id)
        .map((run) => run.state);
    await until(
      async () => announced(changesSoFar).includes('success'),
      60_000,
      'the runs list to announce the run succeeded',
    );
    changes.abort();
    const states = announced(await changeText);
    expect(states).toContain('running');
    expect(states.at(-1)).toBe('success');

    // A fork from stage a is queued too, and a worker runs it from that checkpoint.
    const forked = await api<{ id: string }>(`/pipelines/${id}/fork`, {
      method: 'POST',
      body: JSON.stringify({ from: 'a' }),
    });
    expect(forked.status).toBe(200);
    await until(
      async () => (await details(forked.body.id)).state === 'success',
      60_000,
      'the fork to succeed',
    );
    expect(await readFile(join(dir, 'work', forked.body.id, 'trail.txt'), 'utf8')).toBe('b\n');
  }, 120_000);

  it("serves a stage's files from the shared store: the listing (with stdout.txt and status.json) and their text", async () => {
    const id = await start(SAY);
    await until(async () => (await details(id)).state === 'success', 60_000, 'the run to succeed');
    const stage = await api<{
      dir: string;
      nodeId: string;
      files: { name: string; bytes: number }[];
      visits: number[];
    }>(`/pipelines/${id}/stage?dir=say`);
    expect(stage.status).toBe(200);
    expect(stage.body).toMatchObject({ dir: 'say', nodeId: 'say', branchPath: [], visits: [] });
    const names = stage.body.files.map((file) => file.name);
    expect(names).toEqual(expect.arrayContaining(['stdout.txt', 'status.json']));
    expect(stage.body.files.find((file) => file.name === 'stdout.txt')?.bytes).toBe(
      'hello from a worker\n'.length,
    );
    const stdout = await fetch(`${url}/pipelines/${id}/stage-file?dir=say&name=stdout.txt`, { headers });
    expect(stdout.status).toBe(200);
    expect(stdout.headers.get('content-type')).toContain('text/plain');
    expect(await stdout.text()).toBe('hello from a worker\n');
    const status = await fetch(`${url}/pipelines/${id}/stage-file?dir=say&name=status.json`, { headers });
    expect(status.status).toBe(200);
    expect(JSON.parse(await status.text())).toMatchObject({ outcome: 'success' });

    // The per-node route reads the same files from the store (it answered RUN_NOT_FOUND from the runs directory).
    const byNode = await fetch(`${url}/pipelines/${id}/stages/say/stdout.txt`, { headers });
    expect(byNode.status).toBe(200);
    expect(byNode.headers.get('content-type')).toContain('text/plain');
    expect(await byNode.text()).toBe('hello from a worker\n');
    const statusByNode = await fetch(`${url}/pipelines/${id}/stages/say/status.json`, { headers });
    expect(statusByNode.status).toBe(200);
    expect(statusByNode.headers.get('content-type')).toContain('application/json');
    expect(JSON.parse(await statusByNode.text())).toMatchObject({ outcome: 'success' });
    const missing = await api<{ error: { code: string; message: string } }>(
      `/pipelines/${id}/stages/say/prompt.md`,
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect(missing.body.error.message).toContain('say/prompt.md');
    for (const path of [
      'say/manifest.json',
      'say/..%2Fmanifest.json',
      '..%2Fsay/stdout.txt',
      'say.x/stdout.txt',
    ]) {
      const refused = await api<{ error: { code: string } }>(`/pipelines/${id}/stages/${path}`);
      expect(refused.status, path).toBe(404);
      expect(refused.body.error.code, path).toBe('NOT_FOUND');
    }
    expect((await api('/pipelines/no-such-run/stages/say/stdout.txt')).status).toBe(404);

    expect((await api(`/pipelines/${id}/stage?dir=nowhere`)).status).toBe(404);
    expect((await api(`/pipelines/${id}/stage-file?dir=say&name=prompt.md`)).status).toBe(404);
    expect((await api('/pipelines/no-such-run/stage?dir=say')).status).toBe(404);
    expect((await api(`/pipelines/${id}/stage?dir=..`)).status).toBe(400);
  }, 90_000);

  it("colours a fork's inherited parallel branch stages from the source run's events (nodeStatuses)", async () => {
    const id = await start(`digraph Fan {
      start [shape=Mdiamond]
      fan [shape=component]
      a1 [prompt="A one"]
      b1 [prompt="B one"]
      join [shape=tripleoctagon]
      report [prompt="Report"]
      done [shape=Msquare]
      start -> fan
      fan -> a1
      fan -> b1
      a1 -> join
      b1 -> join
      join -> report -> done
    }`);
    await until(async () => (await details(id)).state === 'success', 60_000, 'the source run to succeed');
    const forked = await api<{ id: string }>(`/pipelines/${id}/fork`, {
      method: 'POST',
      body: JSON.stringify({ from: 'join' }),
    });
    expect(forked.status).toBe(200);
    await until(
      async () => (await details(forked.body.id)).state === 'success',
      60_000,
      'the fork to succeed',
    );
    expect((await details(forked.body.id)).nodeStatuses).toMatchObject({
      fan: 'success',
      a1: 'success',
      b1: 'success',
      join: 'success',
      report: 'success',
    });
  }, 120_000);

  it('forks a run the store holds but the queue never saw (written by an engine run, not enqueued)', async () => {
    // An engine run straight into the store, as an embedder's runPipeline with the catalog's stores writes it.
    const dotPath = join(dir, 'say-store-only.dot');
    await writeFile(dotPath, SAY);
    await runIntoStore('store-only', SAY, dotPath);
    expect((await api('/pipelines/store-only')).status).toBe(200);
    const forked = await api<{ id: string }>('/pipelines/store-only/fork', {
      method: 'POST',
      body: JSON.stringify({ from: 'start', simulate: true }),
    });
    expect(forked.status).toBe(200);
    await until(
      async () => (await details(forked.body.id)).state === 'success',
      60_000,
      'the fork to succeed',
    );
    const stdout = await fetch(`${url}/pipelines/${forked.body.id}/stages/say/stdout.txt`, { headers });
    expect(await stdout.text()).toBe('hello from a worker\n');
    const unknown = await api<{ error: { code: string } }>('/pipelines/never-ran/fork', {
      method: 'POST',
      body: JSON.stringify({ from: 'start' }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('RUN_NOT_FOUND');
  }, 90_000);

  it('serves the DOT file of a run the queue never saw (/source: 404/409 once moved or edited) and forks it with graph_ref next to that file (409 SOURCE_CHANGED once edited, unless the DOT is sent)', async () => {
    // An engine run straight into the store of a pipeline whose sub-pipeline lies next to its DOT file.
    const flows = join(dir, 'store-flows');
    await mkdir(join(flows, 'checks'), { recursive: true });
    const dotPath = join(flows, 'main.dot');
    const MAIN = `digraph main {
  start [shape=Mdiamond]
  plan [prompt="Plan the checks"]
  checks [type="subgraph", graph_ref="checks/say.dot"]
  done [shape=Msquare]
  start -> plan -> checks -> done
}`;
    await writeFile(dotPath, MAIN);
    await writeFile(join(flows, 'checks', 'say.dot'), SAY);
    await runIntoStore('store-subgraph', MAIN, dotPath);
    const source = await fetch(`${url}/pipelines/store-subgraph/source`, { headers });
    expect(source.status).toBe(200);
    expect(await source.text()).toBe(MAIN);

    // The fork runs on a worker in its own working directory: checks/say.dot is found next to main.dot.
    const forked = await api<{ id: string }>('/pipelines/store-subgraph/fork', {
      method: 'POST',
      body: JSON.stringify({ from: 'plan', simulate: true }),
    });
    expect(forked.status).toBe(200);
    await until(
      async () => ['success', 'fail', 'cancelled'].includes((await details(forked.body.id)).state),
      60_000,
      'the fork to end',
    );
    const done = await api<{ state: string; failureReason?: string; nodeStatuses: Record<string, string> }>(
      `/pipelines/${forked.body.id}`,
    );
    expect(done.body.failureReason).toBeUndefined();
    expect(done.body.state).toBe('success');
    expect(done.body.nodeStatuses).toMatchObject({ checks: 'success', done: 'success' });

    const edited = MAIN.replace('Plan the checks', 'Plan other checks');
    await writeFile(dotPath, edited);
    const changed = await api<{ error: { code: string; message: string } }>(
      '/pipelines/store-subgraph/source',
    );
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('SOURCE_CHANGED');
    expect(changed.body.error.message).toContain(dotPath);
    // Nor does it fork from the edited file (another graph than the run ran), and nothing is enqueued; the DOT sent in
    // the request forks it (that is how a run forks with an edited graph).
    const runIds = async () =>
      (await api<{ pipelines: { id: string }[] }>('/pipelines')).body.pipelines.map((run) => run.id).sort();
    const before = await runIds();
    const refused = await api<{ error: { code: string; message: string } }>(
      '/pipelines/store-subgraph/fork',
      {
        method: 'POST',
        body: JSON.stringify({ from: 'plan', simulate: true }),
      },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('SOURCE_CHANGED');
    expect(refused.body.error.message).toContain(dotPath);
    expect(refused.body.error.message).toContain('"dot"');
    expect(await runIds()).toEqual(before);
    const withDot = await api<{ id: string }>('/pipelines/store-subgraph/fork', {
      method: 'POST',
      body: JSON.stringify({ from: 'plan', dot: edited, simulate: true }),
    });
    expect(withDot.status).toBe(200);
    await until(
      async () => ['success', 'fail', 'cancelled'].includes((await details(withDot.body.id)).state),
      60_000,
      'the fork with the DOT sent to end',
    );
    expect((await details(withDot.body.id)).state).toBe('success');
    await rm(dotPath);
    const gone = await api<{ error: { code: string; message: string } }>('/pipelines/store-subgraph/source');
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toContain(`${dotPath}, which no longer exists`);
    expect((await api('/pipelines/never-ran/source')).status).toBe(404);
  }, 90_000);

  it('answers a gate through the server while its run is suspended; a different worker than the one that asked completes it', async () => {
    const id = await start(GATE);
    let questions: { id: string; question: { text: string } }[] = [];
    await until(
      async () => {
        questions = (await api<{ questions: typeof questions }>(`/pipelines/${id}/questions`)).body.questions;
        return questions.length > 0;
      },
      60_000,
      'the gate question',
    );
    expect(questions[0]!.question.text).toBe('Ship it?');
    expect((await details(id)).state).toBe('waiting');
    // The stream says why the run paused (and goes on: a suspension is no end); the list shows it waiting.
    const isSuspension = (message: SseMessage) =>
      (JSON.parse(message.data) as { type?: string }).type === 'pipeline.suspended';
    const paused = await readSse(`${url}/pipelines/${id}/events`, headers, 60_000, (messages) =>
      messages.some(isSuspension),
    );
    expect(paused.some((message) => message.event === 'end')).toBe(false);
    expect(JSON.parse(paused.find(isSuspension)!.data)).toMatchObject({
      type: 'pipeline.suspended',
      stage: 'ask',
      question: { id: questions[0]!.id, text: 'Ship it?' },
    });
    const listed = (await api<{ pipelines: { id: string; state: string }[] }>('/pipelines')).body;
    expect(listed.pipelines.find((run) => run.id === id)?.state).toBe('waiting');
    // The worker that asked stops (its slot was freed when the run was suspended): another one must finish the run.
    const queue = await connectRunQueue({ url: postgres.url });
    try {
      const askedBy = (await queue.readRun(id))?.askedBy ?? '';
      const asker = workers.find((worker) => askedBy.includes(`:${worker.pid}:`));
      expect(asker, askedBy).toBeDefined();
      asker!.kill('SIGTERM');
      await asker;
      workers.splice(workers.indexOf(asker!), 1);
      const answered = await api<{ answer: { value: string } }>(
        `/pipelines/${id}/questions/${encodeURIComponent(questions[0]!.id)}/answer`,
        { method: 'POST', body: JSON.stringify({ value: 'S' }) },
      );
      expect(answered.status).toBe(200);
      await until(async () => (await details(id)).state === 'success', 60_000, 'the answered run to succeed');
      const finished = await queue.readRun(id);
      expect(finished?.worker).toBeDefined();
      expect(finished?.worker).not.toBe(askedBy);
    } finally {
      await queue.close();
    }
    expect(await readFile(join(dir, 'work', id, 'trail.txt'), 'utf8')).toBe('shipped\n');
    workers.push(startWorker());
  }, 120_000);

  it('cancel through the API reaches the worker: the run ends cancelled, its stage stopped', async () => {
    const id = await start(SLOW);
    await until(
      async () => (await details(id)).nodeStatuses.wait === 'running',
      60_000,
      'the slow stage to start on a worker',
    );
    expect((await api(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    // SLOW's stage would take far longer than this wait: ending cancelled means the cancel reached the worker.
    await until(async () => (await details(id)).state === 'cancelled', 60_000, 'the run to end cancelled');
  }, 120_000);

  it('deletes a run that ended from the store and the queue (DELETE /pipelines/{id}); a running one is refused', async () => {
    const id = await start(SLOW);
    await until(
      async () => (await details(id)).nodeStatuses.wait === 'running',
      60_000,
      'the slow stage to start on a worker',
    );
    const remove = () => fetch(`${url}/pipelines/${id}`, { method: 'DELETE', headers });
    const refused = await remove();
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: 'RUN_ACTIVE', message: `Run "${id}" is running: cancel it first, then delete it.` },
    });
    expect((await api(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    await until(async () => (await details(id)).state === 'cancelled', 60_000, 'the run to end cancelled');
    // Until its worker lets the queue's job go, a run that ended is refused with a message saying so.
    await until(
      async () => {
        const deleted = await remove();
        if (deleted.status === 204) return true;
        expect(((await deleted.json()) as { error: { message: string } }).error.message).toMatch(
          /has ended \(cancelled\), but its worker has not let it go yet .*: try again in a moment\.$/,
        );
        return false;
      },
      60_000,
      'the delete to be taken',
    );
    expect((await api(`/pipelines/${id}`)).status).toBe(404);
    const listed = await api<{ pipelines: { id: string }[] }>('/pipelines');
    expect(listed.body.pipelines.map((run) => run.id)).not.toContain(id);
    expect((await remove()).status).toBe(404);
  }, 120_000);

  it('archives a run that ended in the PostgreSQL run index (hidden from the list, ?archived=include/only), refuses a running one, unarchives; a resume unarchives', async () => {
    const id = await start(SLOW);
    await until(
      async () => (await details(id)).nodeStatuses.wait === 'running',
      60_000,
      'the slow stage to start on a worker',
    );
    const archive = (action = 'archive') =>
      api<{ id: string; archived?: boolean; error?: unknown }>(`/pipelines/${id}/${action}`, {
        method: 'POST',
      });
    const refused = await archive();
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: {
        code: 'RUN_ACTIVE',
        message: `Run "${id}" is running: cancel it or let it end first, then archive it.`,
      },
    });
    expect((await api(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    await until(async () => (await details(id)).state === 'cancelled', 60_000, 'the run to end cancelled');
    const listed = async (query = '') =>
      (await api<{ pipelines: { id: string }[] }>(`/pipelines${query}`)).body.pipelines.map((run) => run.id);

    const archived = await archive();
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id, archived: true });
    expect((await api<{ archived?: boolean }>(`/pipelines/${id}`)).body.archived).toBe(true);
    expect(await listed()).not.toContain(id);
    expect(await listed('?archived=include')).toContain(id);
    expect(await listed('?archived=only')).toEqual([id]);
    // The mark is the index's: a second server process reads it from PostgreSQL.
    const catalog = createPostgresRunCatalog({ connectionString: postgres.url });
    try {
      expect((await catalog.readRunEntry(id))?.archivedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    } finally {
      await catalog.close();
    }

    const unarchived = await archive('unarchive');
    expect(unarchived.status).toBe(200);
    expect(unarchived.body).not.toHaveProperty('archived');
    expect(await listed()).toContain(id);
    expect(await listed('?archived=only')).toEqual([]);
    // Resuming an archived run unarchives it: a run that goes on shows in the list again.
    expect((await archive()).status).toBe(200);
    const resumed = await api<Record<string, unknown>>(`/pipelines/${id}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    expect(resumed.body).not.toHaveProperty('archived');
    expect(await listed('?archived=only')).toEqual([]);
    await until(async () => (await details(id)).nodeStatuses.wait === 'running', 60_000, 'the resumed stage');
    expect((await api(`/pipelines/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    await until(
      async () => (await details(id)).state === 'cancelled',
      60_000,
      'the run to end cancelled again',
    );
    expect((await api('/pipelines/2026-01-01T00-00-00Z-nothing/archive', { method: 'POST' })).status).toBe(
      404,
    );
    expect((await api('/pipelines?archived=all')).status).toBe(400);
  }, 120_000);

  it('a run no worker has taken yet is queued, in the start and fork responses, its details and the list, until a worker runs it', async () => {
    const done = await start(SAY);
    await until(async () => (await details(done)).state === 'success', 60_000, 'the first run to succeed');
    // No worker left: what is enqueued now waits in the queue.
    const stopped = workers.splice(0);
    for (const worker of stopped) worker.kill('SIGTERM');
    await Promise.all(stopped);
    type Summary = { id: string; state: string; live: boolean };
    const started = await api<Summary>('/pipelines', {
      method: 'POST',
      body: JSON.stringify({ dot: SAY, simulate: true }),
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ state: 'queued', live: true });
    const forked = await api<Summary>(`/pipelines/${done}/fork`, {
      method: 'POST',
      body: JSON.stringify({ from: 'say', simulate: true }),
    });
    expect(forked.status).toBe(200);
    expect(forked.body).toMatchObject({ state: 'queued', live: true });
    for (const id of [started.body.id, forked.body.id]) {
      expect((await api<Summary>(`/pipelines/${id}`)).body).toMatchObject({ state: 'queued', live: true });
    }
    const listed = (await api<{ pipelines: Summary[] }>('/pipelines')).body.pipelines;
    expect(listed.find((run) => run.id === started.body.id)?.state).toBe('queued');
    expect(listed.find((run) => run.id === forked.body.id)?.state).toBe('queued');
    for (let index = 0; index < 2; index += 1) workers.push(startWorker());
    for (const id of [started.body.id, forked.body.id]) {
      await until(async () => (await details(id)).state === 'success', 60_000, `queued run ${id} to succeed`);
    }
  }, 120_000);

  it('a restarted server shows the runs workers execute and streams their events', async () => {
    const id = await start(RELAY);
    await until(
      async () => Object.keys((await details(id)).nodeStatuses).length > 0,
      60_000,
      'the run to start on a worker',
    );
    server!.kill('SIGTERM');
    await server;
    await startServe();
    const list = await api<{ pipelines: { id: string }[] }>('/pipelines');
    expect(list.body.pipelines.map((run) => run.id)).toContain(id);
    const messages = await readSse(`${url}/pipelines/${id}/events`, headers);
    expect(JSON.parse(messages.at(-1)!.data)).toEqual({ state: 'success' });
    expect((await details(id)).state).toBe('success');
  }, 120_000);

  it('serves child runs (?child=) and parallel branches from the store with the same JSON as a local server', async () => {
    const childFile = join(dir, 'checks.dot');
    await writeFile(childFile, CHECKS);
    const dot = FAMILY(childFile);
    // The same pipeline on a local server (its own runs directory, executed in its process).
    const local = serveLocally();
    try {
      const localUrl = (await waitForBanner(local)).url;
      const localApi = async (path: string) => {
        const response = await fetch(`${localUrl}${path}`, { headers: localHeaders });
        return {
          status: response.status,
          text: await response.text(),
          type: response.headers.get('content-type'),
        };
      };
      const sharedApi = async (path: string) => {
        const response = await fetch(`${url}${path}`, { headers });
        return {
          status: response.status,
          text: await response.text(),
          type: response.headers.get('content-type'),
        };
      };
      const started = await fetch(`${localUrl}/pipelines`, {
        method: 'POST',
        headers: localHeaders,
        body: JSON.stringify({ dot, simulate: true }),
      });
      expect(started.status).toBe(201);
      const localId = ((await started.json()) as { id: string }).id;
      const sharedId = await start(dot);
      // Followed from the start, the top run's stream gets the child's events as the worker writes them.
      const followed = readSse(`${url}/pipelines/${sharedId}/events`, headers);
      await until(
        async () => (await details(sharedId)).state === 'success',
        60_000,
        'the shared run to succeed',
      );
      const streamed = await followed;
      expect(JSON.stringify(streamed)).not.toContain(CHILD_SECRET);
      const live = streamed
        .filter((message) => message.id === undefined && message.event === undefined)
        .map((message) => JSON.parse(message.data) as { type: string; runId: string; nodeId?: string });
      expect(live.map((event) => `${event.runId} ${event.type} ${event.nodeId ?? ''}`.trim())).toEqual(
        expect.arrayContaining([
          'child pipeline.started',
          'child stage.completed x',
          'child stage.completed y',
          'child pipeline.completed',
        ]),
      );
      await until(
        async () =>
          (JSON.parse((await localApi(`/pipelines/${localId}`)).text) as { state: string }).state ===
          'success',
        60_000,
        'the local run to succeed',
      );

      /** GETs `path` (with `{id}` for the run id) from both servers; the answers must match. */
      const same = async (path: string): Promise<{ status: number; text: string }> => {
        const [fromLocal, fromShared] = await Promise.all([
          localApi(path.replace('{id}', localId)),
          sharedApi(path.replace('{id}', sharedId)),
        ]);
        expect(fromShared.status, `${path}: ${fromShared.text}`).toBe(fromLocal.status);
        expect(fromShared.text, path).not.toContain(CHILD_SECRET);
        expect(fromShared.type, path).toBe(fromLocal.type);
        if (fromLocal.status >= 400) {
          // The same error code; the message names where each server looked (runs directory, run store).
          const code = (text: string) => (JSON.parse(text) as { error: { code: string } }).error.code;
          expect(code(fromShared.text), path).toBe(code(fromLocal.text));
        } else if (fromLocal.type?.startsWith('application/json') === true) {
          expect(comparable(JSON.parse(fromShared.text), sharedId), path).toEqual(
            comparable(JSON.parse(fromLocal.text), localId),
          );
        } else {
          expect(fromShared.text.replaceAll(sharedId, '<run>'), path).toBe(
            fromLocal.text.replaceAll(localId, '<run>'),
          );
        }
        return fromShared;
      };

      const top = JSON.parse((await same('/pipelines/{id}')).text) as {
        stageDirectories: { dir: string; files: { name: string }[] }[];
      };
      expect(top.stageDirectories.map((stage) => stage.dir)).toEqual(
        expect.arrayContaining(['fan', 'fan/branches/a1/a1', 'fan/branches/b1/b1', 'checks']),
      );
      const child = JSON.parse((await same('/pipelines/{id}?child=checks/child')).text) as {
        state: string;
        child: unknown;
        nodeStatuses: Record<string, string>;
        stageDirectories: { dir: string; files: { name: string }[] }[];
      };
      expect(child.state).toBe('success');
      expect(child.child).toEqual({ path: 'checks/child', runId: 'child', parentNode: 'checks' });
      expect(child.nodeStatuses).toMatchObject({ review: 'success', x: 'success', y: 'success' });
      expect(child.stageDirectories.map((stage) => stage.dir)).toEqual(
        expect.arrayContaining(['review', 'cfan/branches/x/x', 'cfan/branches/y/y']),
      );
      // The graph (SVG coloured by the statuses), every stage directory and every served file, of both runs.
      for (const query of ['', '?child=checks/child']) {
        await same(`/pipelines/{id}/graph${query}`);
        const shown = query === '' ? top : child;
        const join = query === '' ? '' : `&child=${encodeURIComponent('checks/child')}`;
        for (const stage of shown.stageDirectories) {
          await same(`/pipelines/{id}/stage?dir=${encodeURIComponent(stage.dir)}${join}`);
          for (const file of stage.files)
            if (file.name !== 'status.json')
              await same(
                `/pipelines/{id}/stage-file?dir=${encodeURIComponent(stage.dir)}&name=${file.name}${join}`,
              );
        }
      }
      const stdout = await same(
        '/pipelines/{id}/stage-file?dir=cfan/branches/x/x&name=stdout.txt&child=checks/child',
      );
      expect(stdout.text).toBe('x ran in the child with [REDACTED]\n');
      const context = JSON.parse(
        (await sharedApi(`/pipelines/${sharedId}/context?child=checks/child`)).text,
      ) as {
        afterNode: string;
        context: Record<string, unknown>;
      };
      const localContext = JSON.parse(
        (await localApi(`/pipelines/${localId}/context?child=checks/child`)).text,
      ) as {
        afterNode: string;
        context: Record<string, unknown>;
      };
      expect(context.afterNode).toBe(localContext.afterNode);
      expect(Object.keys(context.context).sort()).toEqual(Object.keys(localContext.context).sort());
      const checkpoint = JSON.parse(
        (await sharedApi(`/pipelines/${sharedId}/checkpoint?child=checks/child`)).text,
      ) as {
        completed_nodes: string[];
      };
      expect(checkpoint.completed_nodes).toEqual(expect.arrayContaining(['review', 'cfan', 'cjoin']));

      // The checkpoint history (time travel) of the run and of its child: the same stages and context keys.
      type History = {
        checkpoints: {
          index: number;
          at: string | null;
          dir: string | null;
          context: Record<string, unknown>;
        }[];
        total: number;
      };
      for (const query of ['', '?child=checks/child']) {
        const [fromShared, fromLocal] = await Promise.all([
          sharedApi(`/pipelines/${sharedId}/checkpoints${query}`),
          localApi(`/pipelines/${localId}/checkpoints${query}`),
        ]);
        expect(fromShared.status, fromShared.text).toBe(200);
        expect(fromShared.text).not.toContain(CHILD_SECRET);
        const shared = JSON.parse(fromShared.text) as History;
        const local = JSON.parse(fromLocal.text) as History;
        const stages = (history: History) =>
          history.checkpoints.map(({ index, at, dir, context: values }) => ({
            index,
            at,
            dir,
            keys: Object.keys(values).sort(),
          }));
        expect(stages(shared), query).toEqual(stages(local));
        expect(shared.total).toBeGreaterThan(2);
      }
      const childHistory = JSON.parse(
        (await sharedApi(`/pipelines/${sharedId}/checkpoints?child=checks/child&offset=1&limit=2`)).text,
      ) as History;
      expect(childHistory.checkpoints.map((entry) => entry.at)).toEqual(['start@1', 'review@1']);

      // A fork with edited context: the worker starts it from the checkpoint's context plus the edits.
      const forked = await fetch(`${url}/pipelines/${sharedId}/fork`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ from: 'checks@1', context: { note: 'edited in the fork' } }),
      });
      expect(forked.status).toBe(200);
      const forkId = ((await forked.json()) as { id: string }).id;
      await until(async () => (await details(forkId)).state === 'success', 60_000, 'the fork to succeed');
      const forkHistory = JSON.parse((await sharedApi(`/pipelines/${forkId}/checkpoints`)).text) as History;
      expect(forkHistory.checkpoints[0]).toMatchObject({
        at: 'checks@1',
        context: { note: 'edited in the fork' },
      });

      // Not found and bad requests answer alike.
      for (const path of [
        '/pipelines/{id}?child=checks/child-2',
        '/pipelines/{id}?child=nowhere/child',
        '/pipelines/{id}?child=..',
        '/pipelines/{id}?child=checks',
        '/pipelines/{id}/graph?child=fan/child',
        '/pipelines/{id}/stage?dir=nowhere&child=checks/child',
        '/pipelines/{id}/stage?dir=..&child=checks/child',
        '/pipelines/{id}/stage-file?dir=review&name=stderr.txt&child=checks/child',
        '/pipelines/{id}/context?child=../x/child',
        '/pipelines/{id}/checkpoints?child=checks/child-2',
        '/pipelines/no-such-run/checkpoints',
        '/pipelines/no-such-run?child=checks/child',
      ]) {
        const answer = await same(path);
        expect([400, 404], path).toContain(answer.status);
      }

      // The child's event stream: its own events (ids: its seq) in the same order, then its end.
      const childEvents = async (base: string, id: string, auth: Record<string, string>) =>
        (await readSse(`${base}/pipelines/${id}/events?child=checks/child`, auth)).map((message) =>
          message.event === 'end'
            ? `end ${message.data}`
            : `${message.id ?? '-'} ${(JSON.parse(message.data) as { type: string }).type}`,
        );
      const sharedStream = await childEvents(url, sharedId, headers);
      const localStream = await childEvents(localUrl, localId, localHeaders);
      expect(sharedStream[0]).toBe('1 pipeline.started');
      expect(sharedStream.at(-1)).toBe('end {"state":"success"}');
      // Ids 1..n in order; the parallel branches interleave differently from run to run.
      expect(sharedStream.slice(0, -1).map((line) => Number(line.split(' ')[0]))).toEqual(
        sharedStream.slice(0, -1).map((_, index) => index + 1),
      );
      const types = (lines: string[]) => lines.map((line) => line.split(' ').slice(1).join(' ')).sort();
      expect(types(sharedStream)).toEqual(types(localStream));
      // A fresh client of the top run also gets the child's events (without ids), as locally.
      const topTypes = async (base: string, id: string, auth: Record<string, string>) =>
        (await readSse(`${base}/pipelines/${id}/events`, auth))
          .filter((message) => message.id === undefined && message.event === undefined)
          .map((message) => JSON.parse(message.data) as { type: string; runId: string })
          .map((event) => `${event.runId} ${event.type}`)
          .sort();
      const sharedChildEvents = await topTypes(url, sharedId, headers);
      expect(sharedChildEvents).toContain('child pipeline.completed');
      expect(sharedChildEvents).toEqual(await topTypes(localUrl, localId, localHeaders));
    } finally {
      local.kill('SIGTERM');
      await local;
    }
  }, 150_000);
  it('lists forked, resumed, branch-failed and waiting runs with the same summary fields as a local server (issue 31)', async () => {
    const local = serveLocally();
    try {
      const localUrl = (await waitForBanner(local)).url;
      type Row = {
        id: string;
        state: string;
        forkedFrom?: { runId: string; node: string; visit: number };
        resumes?: number;
        failedBranches?: number;
        failedItems?: number;
        pendingQuestions: number;
        waitingQuestion?: { id: string; stage: string; text: string; type: string; options: unknown[] };
        usage?: unknown;
        endedAt?: string;
        durationMs?: number;
      };
      /** One backplane: its API, and its runs list's row of a run. */
      const sides = [
        { name: 'local', base: localUrl, auth: localHeaders },
        { name: 'shared', base: url, auth: headers },
      ].map((side) => {
        const call = async <T>(path: string, init: RequestInit = {}) => {
          const response = await fetch(`${side.base}${path}`, { ...init, headers: side.auth });
          return { status: response.status, body: (await response.json()) as T };
        };
        const startRun = async (dot: string) => {
          const started = await call<{ id: string }>('/pipelines', {
            method: 'POST',
            body: JSON.stringify({ dot, simulate: true }),
          });
          expect(started.status, JSON.stringify(started.body)).toBe(201);
          return started.body.id;
        };
        const row = async (id: string) =>
          (await call<{ pipelines: Row[] }>('/pipelines')).body.pipelines.find((run) => run.id === id);
        const state = async (id: string) => (await call<{ state: string }>(`/pipelines/${id}`)).body.state;
        const settle = (id: string, want: string) =>
          until(async () => (await state(id)) === want, 90_000, `${side.name} run ${id} to be ${want}`);
        return { ...side, call, startRun, row, state, settle };
      });

      /** What the rows of both sides must agree on: the summary fields of issue 31 (ids and times aside). */
      const shown = (row: Row | undefined, sourceId?: string) => ({
        state: row?.state,
        forkedFrom:
          row?.forkedFrom === undefined
            ? undefined
            : {
                ...row.forkedFrom,
                runId: row.forkedFrom.runId === sourceId ? '<source>' : row.forkedFrom.runId,
              },
        resumes: row?.resumes,
        failedBranches: row?.failedBranches,
        failedItems: row?.failedItems,
        pendingQuestions: row?.pendingQuestions,
        waitingQuestion:
          row?.waitingQuestion === undefined ? undefined : { ...row.waitingQuestion, id: '<question>' },
        usage: row?.usage,
        ended: row?.endedAt !== undefined,
        timed: row?.durationMs !== undefined,
      });

      const results = await Promise.all(
        sides.map(async (side) => {
          // A fan-out with a failing branch: the run goes on (wait_all joins as partial success) and succeeds.
          const shaky = await side.startRun(SHAKY);
          // A fork of a finished run, from its stage "say".
          const source = await side.startRun(SAY);
          await side.settle(source, 'success');
          const forked = await side.call<{ id: string }>(`/pipelines/${source}/fork`, {
            method: 'POST',
            body: JSON.stringify({ from: 'say' }),
          });
          expect(forked.status, JSON.stringify(forked.body)).toBe(200);
          // A run cancelled at its slow stage, then resumed: its flag file lets the stage finish the second time.
          const flag = join(dir, `resume-flag-${side.name}`);
          const paused = await side.startRun(PAUSE(flag));
          await until(
            async () =>
              (await side.call<{ nodeStatuses: Record<string, string> }>(`/pipelines/${paused}`)).body
                .nodeStatuses.step === 'running',
            90_000,
            `${side.name} run ${paused} to run its slow stage`,
          );
          expect((await side.call(`/pipelines/${paused}/cancel`, { method: 'POST' })).status).toBe(200);
          await side.settle(paused, 'cancelled');
          await writeFile(flag, 'go\n');
          // A worker lets the queue's job of a cancelled run go a moment after the store says it ended.
          await until(
            async () => (await side.call(`/pipelines/${paused}/resume`, { method: 'POST' })).status === 200,
            90_000,
            `${side.name} run ${paused} to resume`,
          );
          // A run waiting at a gate.
          const gate = await side.startRun(GATE);
          await side.settle(gate, 'waiting');
          for (const id of [shaky, forked.body.id, paused]) await side.settle(id, 'success');
          return { side, shaky, source, forked: forked.body.id, paused, gate };
        }),
      );

      const [onLocal, onShared] = results;
      /** The rows of one side's four runs, as `shown` keeps them. */
      const rows = async (on: (typeof results)[number]) =>
        Object.fromEntries(
          await Promise.all(
            (['shaky', 'forked', 'paused', 'gate'] as const).map(async (kind) => [
              kind,
              shown(await on.side.row(on[kind]), on.source),
            ]),
          ),
        );
      expect(await rows(onShared!)).toEqual(await rows(onLocal!));
      const shared = onShared!.side;
      expect(await shared.row(onShared!.shaky)).toMatchObject({ state: 'success', failedBranches: 1 });
      expect(await shared.row(onShared!.forked)).toMatchObject({
        forkedFrom: { runId: onShared!.source, node: 'say', visit: 1 },
      });
      const resumedRow = await shared.row(onShared!.paused);
      expect(resumedRow).toMatchObject({ state: 'success', resumes: 1 });
      // Its duration is the sum of its two legs (the cancelled one and the resumed one), as its events report them.
      const legs = (await readSse(`${url}/pipelines/${onShared!.paused}/events`, headers))
        .filter((message) => message.id !== undefined)
        .map(
          (message) =>
            JSON.parse(message.data) as { type: string; branchPath?: string[]; durationMs?: number },
        )
        .filter(
          (event) =>
            event.branchPath === undefined &&
            ['pipeline.cancelled', 'pipeline.completed'].includes(event.type),
        );
      expect(legs.map((event) => event.type)).toEqual(['pipeline.cancelled', 'pipeline.completed']);
      expect(resumedRow?.durationMs).toBe(legs.reduce((sum, event) => sum + (event.durationMs ?? 0), 0));
      const waitingRow = await shared.row(onShared!.gate);
      expect(waitingRow).toMatchObject({
        state: 'waiting',
        pendingQuestions: 1,
        waitingQuestion: {
          stage: 'ask',
          text: 'Ship it?',
          type: 'multiple_choice',
          options: [
            { key: 'S', label: '[S] Ship' },
            { key: 'H', label: '[H] Hold' },
          ],
        },
      });
      // The runs list in Chromium shows the markers, and the gate's question is answered from its row.
      const browser = await launchBrowser();
      try {
        const page = await browser.open({ url, token }, '/');
        const rowOf = (id: string) => page.locator(`tr[data-run="${id}"]`);
        await expect
          .poll(() => rowOf(onShared!.forked).locator('[data-marker="fork"]').textContent())
          .toBe(`forked from ${onShared!.source} after say`);
        expect(await rowOf(onShared!.paused).locator('[data-marker="resumed"]').textContent()).toBe(
          'resumed',
        );
        expect(await rowOf(onShared!.shaky).locator('.partial-failure').textContent()).toBe(
          '1 branch failed',
        );
        const gateRow = rowOf(onShared!.gate);
        expect(await gateRow.locator('.waiting-question').textContent()).toContain('ask asks: Ship it?');
        await screenshot(page, 'shared-store-runs-list-markers');
        await gateRow.locator('button[data-answer="H"]').click();
        // The list follows the run (GET /events) until a worker has completed it.
        await page
          .locator(`tr[data-run="${onShared!.gate}"][data-state="success"]`)
          .waitFor({ timeout: 90_000 });
      } finally {
        await browser.close();
      }
      await shared.settle(onShared!.gate, 'success');
      // The local gate, through the API with its row's question id.
      const localQuestion = (await onLocal!.side.row(onLocal!.gate))!.waitingQuestion!;
      const answered = await onLocal!.side.call(
        `/pipelines/${onLocal!.gate}/questions/${encodeURIComponent(localQuestion.id)}/answer`,
        { method: 'POST', body: JSON.stringify({ value: 'H' }) },
      );
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      await onLocal!.side.settle(onLocal!.gate, 'success');
      // A worker suspends the run at its gate and continues it from the checkpoint when answered: no resume.
      expect(await rows(onShared!)).toEqual(await rows(onLocal!));
      expect((await shared.row(onShared!.gate))?.resumes).toBeUndefined();
    } finally {
      local.kill('SIGTERM');
      await local;
    }
  }, 300_000);

  /**
   * Runs `source` with the engine into run `runId` of a run store on a shared volume (a directory, `name`), then
   * serves that store and calls `use` with the server's URL and the volume's path; the server is stopped after.
   */
  const serveVolume = async (
    name: string,
    source: string,
    runId: string,
    use: (volumeUrl: string, volume: string) => Promise<void>,
  ): Promise<void> => {
    const volume = join(dir, name);
    const result = await runPipeline({
      graph: prepareGraph(source).graph!,
      registry: createDefaultRegistry(),
      backend: createSimulationBackend(),
      logsRoot: join(volume, runId),
      workdir: dir,
    });
    expect(result.status).toBe('success');
    const onVolume = attractor(['serve', '--port', '0', '--token', token, '--allow-tools'], {
      cwd: dir,
      env: { ...env, ATTRACTOR_STORE_URL: volume },
    });
    try {
      await use((await waitForBanner(onVolume)).url, volume);
    } finally {
      onVolume.kill('SIGTERM');
      await onVolume;
    }
  };

  it('lists the runs of a run store on a shared volume (a file catalog keeps no totals) with their totals from their events', async () => {
    await serveVolume('volume-runs', SHAKY, 'volume-shaky', async (volumeUrl, volume) => {
      const listed = (await (await fetch(`${volumeUrl}/pipelines`, { headers })).json()) as {
        pipelines: { id: string; state: string; failedBranches?: number; durationMs?: number }[];
      };
      const ended = (await readFile(join(volume, 'volume-shaky', 'events.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; branchPath?: string[]; durationMs?: number })
        .find((event) => event.type === 'pipeline.completed' && event.branchPath === undefined);
      expect(listed.pipelines.find((run) => run.id === 'volume-shaky')).toMatchObject({
        state: 'success',
        failedBranches: 1,
        durationMs: ended?.durationMs,
      });
    });
  }, 120_000);

  it('refuses to archive or unarchive a run of a run store on a shared volume (a file catalog keeps no archive mark): 501 ARCHIVE_NOT_SUPPORTED', async () => {
    await serveVolume('volume-archive-runs', SAY, 'volume-say', async (volumeUrl, volume) => {
      for (const action of ['archive', 'unarchive']) {
        const response = await fetch(`${volumeUrl}/pipelines/volume-say/${action}`, {
          method: 'POST',
          headers,
        });
        expect(response.status).toBe(501);
        expect(await response.json()).toEqual({
          error: {
            code: 'ARCHIVE_NOT_SUPPORTED',
            message: `The run store ${volume} cannot archive runs: archive them on a PostgreSQL run store (serve --store postgres://…).`,
          },
        });
      }
      // Nothing was marked: the run is still listed, without the mark.
      const listed = (await (await fetch(`${volumeUrl}/pipelines`, { headers })).json()) as {
        pipelines: { id: string; state: string; archived?: boolean }[];
      };
      const run = listed.pipelines.find((entry) => entry.id === 'volume-say');
      expect(run).toMatchObject({ id: 'volume-say', state: 'success' });
      expect(run).not.toHaveProperty('archived');
    });
  }, 120_000);

  it("opens a sub-pipeline's own view and a branch of its parallel block in Chromium, read from the shared store", async () => {
    const childFile = join(dir, 'checks-ui.dot');
    await writeFile(childFile, CHECKS);
    const id = await start(FAMILY(childFile));
    await until(async () => (await details(id)).state === 'success', 60_000, 'the run to succeed');
    const browser = await launchBrowser();
    try {
      // The parent's page: the node's pane shows its child run (replayed from the child's store) and links to it.
      const page = await browser.open({ url, token }, `/runs/${encodeURIComponent(id)}?stage=checks`);
      await page.locator('#run-state[data-state="success"]').waitFor();
      const child = page.locator('#stage-pane #child-run');
      await expect.poll(() => child.locator('h3 .badge').textContent()).toBe('success');
      await page.locator('#stage-pane #open-child-run').click();
      await page.waitForURL((address) => address.searchParams.get('child') === 'checks/child');
      // The child's own view: its graph coloured by its statuses, its header, no run actions.
      await page.locator('#graph[data-loaded] g#node-review.status-success').waitFor();
      await page.locator('#graph g#node-x.status-success').waitFor();
      await page.locator('#graph g#node-cjoin.status-success').waitFor();
      expect(await page.locator('#run-title').textContent()).toBe('checks');
      expect(await page.locator('#run-id').textContent()).toBe(`${id} / checks/child`);
      expect(await page.locator('#cancel-button').count()).toBe(0);
      // A stage pane of the child, with its files from the store.
      await page.click('#graph g#node-review');
      await page.waitForURL((address) => address.searchParams.get('stage') === 'review');
      await expect
        .poll(() => page.locator('#stage-pane .stage-file[data-file="prompt.md"] pre').first().textContent())
        .toContain('Review the change');
      await screenshot(page, 'shared-store-child-run');
      // One branch of the child's parallel block, with the stdout of its stage.
      await page.click('#graph g#node-cfan');
      await page.locator('#stage-pane #branches li[data-branch="x"] a').click();
      await page.waitForURL((address) => address.searchParams.get('branch') === 'x');
      await page.locator('#branch-scope').waitFor();
      await page.locator('#graph[data-loaded] g#node-x.status-success').waitFor();
      await page.click('#graph g#node-x');
      await page.waitForURL((address) => address.searchParams.get('stage') === 'x');
      const stdout = page.locator('#stage-pane .stage-file[data-file="stdout.txt"]').first();
      await stdout.locator('summary').click();
      await expect
        .poll(() => stdout.locator('pre').textContent())
        .toBe('x ran in the child with [REDACTED]\n');
      expect(browser.pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('a run page and the runs list open in Chromium across a killed server go offline, then show what the store says once it is back', async () => {
    const id = await start(GATE);
    await until(async () => (await details(id)).state === 'waiting', 60_000, 'the run to wait at its gate');
    const browser = await launchBrowser();
    const queue = await connectRunQueue({ url: postgres.url });
    try {
      const runPage = await browser.open({ url, token }, `/runs/${encodeURIComponent(id)}`);
      const listPage = await browser.open({ url, token }, '/');
      const connection = (page: typeof runPage) =>
        page.locator('#connection-status').getAttribute('data-state');
      await runPage.locator('#gate-panel button[data-answer="S"]').waitFor();
      await listPage.locator(`tr[data-run="${id}"][data-state="waiting"]`).waitFor();
      for (const page of [runPage, listPage]) await expect.poll(() => connection(page)).toBe('live');

      server!.kill('SIGKILL');
      await server;
      for (const page of [runPage, listPage]) await expect.poll(() => connection(page)).toBe('offline');
      // While the server is down, the gate is answered through the queue and a worker finishes the run.
      await queue.answerRun({ runId: id, text: 'S' });
      await until(async () => (await queue.readRun(id))?.state === 'success', 60_000, 'the run to succeed');
      await screenshot(runPage, 'shared-store-run-offline');

      await startServe(Number(new URL(url).port));
      const back = Date.now();
      expect((await details(id)).state).toBe('success');
      // Waits on the condition (this file also runs beside CPU burners): the pages retry every 2 s at most.
      await expect
        .poll(() => runPage.locator('#run-state').textContent(), { timeout: 30_000 })
        .toBe('success');
      await expect
        .poll(() => listPage.locator(`tr[data-run="${id}"]`).getAttribute('data-state'), {
          timeout: 30_000 - (Date.now() - back),
        })
        .toBe('success');
      expect(await runPage.locator('#cancel-button').count()).toBe(0);
      expect(await runPage.locator('#gate-panel').count()).toBe(0);
      await runPage.locator('#graph g#node-ship.status-success').waitFor();
      // The state can converge through the runs list's stream while the run's own stream waits for its next retry.
      for (const page of [runPage, listPage])
        await expect.poll(() => connection(page), { timeout: 30_000 }).toBe('live');
      await screenshot(runPage, 'shared-store-run-converged');
      expect(browser.pageErrors).toEqual([]);
    } finally {
      await queue.close();
      await browser.close();
    }
  }, 150_000);
});
