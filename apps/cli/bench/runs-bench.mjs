// `attractor runs` over 10,000 runs (issue 34 §6 target: under 0.5 s). Creates 10,000 finished runs (one in ten
// failed) in a file store (a runs directory, through the engine's store) and in a PostgreSQL store with a queue row
// for each (a throw-away server from tools/postgres-server.mjs; one run through the store, the others copies of its
// rows; skipped, and said so, where PostgreSQL is missing), then times `attractor
// runs` in a fresh process through bin/attractor.js, 5 times each: the first listing of the file store (it builds the
// run index, .attractor-run-index.json) and the later ones, a filtered one, the PostgreSQL store, the store with its
// queue, and `attractor --version` (the cost of starting the CLI at all). Prints the median and range of wall and CPU
// time, and writes bench-results/runs.json. The machine's load average is printed too: wall times inflate with load.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFileRunCatalog } from '@attractor/engine';
import { createTestCheckpoint, createTestManifest } from '@attractor/engine/test';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { connectRunQueue } from '@attractor/worker';
import { postgresUnavailableReason, startPostgresServer } from '../../../tools/postgres-server.mjs';

const RUNS = Number(process.env.ATTRACTOR_BENCH_RUNS ?? 10_000);
const bin = fileURLToPath(new URL('../bin/attractor.js', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'attractor-runs-bench-'));
const fileStore = join(directory, 'runs');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`;

/** Run `index`: its id, start time, graph and final state. */
function runAt(index) {
  const startedAt = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
  return {
    runId: `${startedAt.replace(/\.\d{3}Z$/, 'Z').replaceAll(':', '-')}-bench-${index}`,
    startedAt,
    graph: index % 2 === 0 ? 'build' : 'review',
    state: index % 10 === 0 ? 'fail' : 'success',
  };
}

/** Writes run `index` through a catalog's store, as a runner leaves a finished run. */
async function writeRun(catalog, index) {
  const run = runAt(index);
  const store = catalog.open(run.runId);
  await store.writeManifest(
    createTestManifest({ run_id: run.runId, graph_name: run.graph, started_at: run.startedAt }),
  );
  await store.writeCheckpoint(
    createTestCheckpoint({
      run_id: run.runId,
      state: run.state,
      current_node: 'exit',
      next_node: null,
      timestamp: run.startedAt,
    }),
  );
  await store.appendEvents([
    {
      seq: 1,
      timestamp: run.startedAt,
      runId: run.runId,
      type: 'pipeline.started',
      name: run.graph,
      goal: '',
      logsRoot: run.runId,
      resumed: false,
      startNodeId: 'start',
    },
    run.state === 'success'
      ? {
          seq: 2,
          timestamp: run.startedAt,
          runId: run.runId,
          type: 'pipeline.completed',
          durationMs: 1000,
          artifactCount: 0,
          completedCount: 3,
        }
      : {
          seq: 2,
          timestamp: run.startedAt,
          runId: run.runId,
          type: 'pipeline.failed',
          error: 'tests failed',
          durationMs: 1000,
        },
  ]);
  await store.close();
}

/** Writes runs 0..RUNS-1, `concurrency` at a time. */
async function writeRuns(catalog, concurrency) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < RUNS) await writeRun(catalog, next++);
    }),
  );
}

// Runs the CLI inside a wrapper that reports the process's own CPU time on exit (wall time inflates with the load of
// a shared machine; CPU time much less).
const wrapper = `process.argv = [process.argv[0], ${JSON.stringify(bin)}, ...JSON.parse(process.env.BENCH_ARGS)];
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write('BENCH_CPU_US=' + (usage.userCPUTime + usage.systemCPUTime) + '\\n');
});
await import(${JSON.stringify(bin)});`;

function measure(name, args, env = {}, times = 5) {
  const walls = [];
  const cpus = [];
  let lines = 0;
  for (let run = 0; run < times; run += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], {
      cwd: directory,
      env: { ...process.env, NO_COLOR: '1', BENCH_ARGS: JSON.stringify(args), ...env },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    walls.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
    cpus.push(Number(/BENCH_CPU_US=(\d+)/.exec(result.stderr)?.[1] ?? 0) / 1000);
    lines = result.stdout.trim() === '' ? 0 : result.stdout.trim().split('\n').length;
    if (run === 0) console.error(`${name}: ${result.stderr.replace(/BENCH_CPU_US=\d+\n?/, '').trim()}`);
  }
  return {
    name,
    medianWallMs: Math.round(median(walls)),
    wallRangeMs: range(walls),
    medianCpuMs: Math.round(median(cpus)),
    cpuRangeMs: range(cpus),
    linesPrinted: lines,
  };
}

const results = [];
let started = Date.now();
await writeRuns(createFileRunCatalog(fileStore), 1);
console.error(`created ${RUNS} runs in ${fileStore} in ${Date.now() - started} ms`);
results.push(measure('--version (CLI start)', ['--version']));
results.push(
  measure(`runs, file store, first listing (builds the index)`, ['runs', '--store', fileStore], {}, 1),
);
results.push(measure(`runs, file store (${RUNS} runs)`, ['runs', '--store', fileStore]));
results.push(measure(`runs --status fail, file store`, ['runs', '--store', fileStore, '--status', 'fail']));
results.push(
  measure(`runs --json --page 100, file store`, ['runs', '--store', fileStore, '--json', '--page', '100']),
);

const unavailable = postgresUnavailableReason();
if (unavailable !== undefined) {
  console.error(`PostgreSQL rows skipped: ${unavailable}`);
} else {
  const server = await startPostgresServer();
  try {
    started = Date.now();
    // Run 0 through the store's API; the others are copies of its rows under their own ids, times, graphs and states
    // (writing 10,000 runs through the API, a connection per run, takes many minutes).
    const catalog = createPostgresRunCatalog({ connectionString: server.url });
    await writeRun(catalog, 0);
    await catalog.close();
    // The queue's row of each run, as workers leave them (the request holds the DOT source).
    const queue = await connectRunQueue({ url: server.url });
    const runs = Array.from({ length: RUNS }, (_, index) => runAt(index));
    const columns = {
      ids: runs.map((run) => run.runId),
      graphs: runs.map((run) => run.graph),
      states: runs.map((run) => run.state),
      starts: runs.map((run) => run.startedAt),
    };
    const copies = `unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS run(id, graph, state, started, position)`;
    const parameters = [
      columns.ids.slice(1),
      columns.graphs.slice(1),
      columns.states.slice(1),
      columns.starts.slice(1),
    ];
    await queue.pool.query(
      `INSERT INTO attractor.runs (run_key, run_id, graph_name, goal, status, current_node, started_at, ended_at, tokens,
                                   cost_usd, manifest)
       SELECT run.id, run.id, run.graph, t.goal, run.state, t.current_node, run.started::timestamptz,
              run.started::timestamptz + interval '1 second', t.tokens, t.cost_usd, t.manifest
       FROM attractor.runs t, ${copies} WHERE t.run_key = $5`,
      [...parameters, runAt(0).runId],
    );
    for (const table of ['checkpoints', 'events']) {
      const extra = table === 'events' ? ', seq' : '';
      await queue.pool.query(
        `INSERT INTO attractor.${table} (run_key, body${extra})
         SELECT run.id, t.body${extra === '' ? '' : ', t.seq'} FROM attractor.${table} t, ${copies} WHERE t.run_key = $5`,
        [...parameters, runAt(0).runId],
      );
    }
    await queue.pool.query(
      `INSERT INTO attractor_queue.runs (run_id, request, state, enqueued_at, started_at, ended_at, worker, error)
       SELECT run.id, jsonb_build_object('source', 'digraph ' || run.graph || ' { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }'),
              run.state, run.started::timestamptz, run.started::timestamptz, run.started::timestamptz + interval '1 second',
              'bench-worker', CASE WHEN run.state = 'fail' THEN 'tests failed' END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS run(id, graph, state, started)`,
      [columns.ids, columns.graphs, columns.states, columns.starts],
    );
    await queue.close();
    console.error(`created ${RUNS} runs in PostgreSQL (store and queue) in ${Date.now() - started} ms`);
    results.push(measure(`runs, PostgreSQL store (${RUNS} runs)`, ['runs', '--store', server.url]));
    results.push(
      measure(`runs, PostgreSQL store + queue`, ['runs', '--store', server.url, '--queue', server.url]),
    );
    results.push(measure(`runs, PostgreSQL queue only`, ['runs', '--queue', server.url]));
    results.push(
      measure(`runs --status dead, store + queue`, [
        'runs',
        '--store',
        server.url,
        '--queue',
        server.url,
        '--status',
        'dead',
      ]),
    );
  } finally {
    await server.stop();
  }
}

console.table(results);
console.log(
  `load average: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
rmSync(directory, { recursive: true, force: true });
mkdirSync('bench-results', { recursive: true });
writeFileSync(join('bench-results', 'runs.json'), `${JSON.stringify(results, null, 2)}\n`);
