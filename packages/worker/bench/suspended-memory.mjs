// Issue 18 benchmark "Memory of one worker holding 100 runs suspended at gates: target flat". One worker process
// (`node --expose-gc bench-worker.mjs`, concurrency 1) on a fresh PostgreSQL takes runs that stop at a human gate and
// suspend. After 0, 25, 50, 100 and 200 suspended runs it collects garbage (full collections, the last one as under
// memory pressure) and reports RSS, the V8 heap in use (objects, and compiled code, which grows as the JIT warms up),
// the PostgreSQL connections open and the worker's active handles, then the growth per suspended run from 25 on (the
// first runs warm up: JIT code, libuv's threads).
//
// Settings (environment):
//   BENCH_STEPS   suspended runs at which to measure (default 0,25,50,100,200)
//   BENCH_STORES  run stores: postgres, directory (the file store) (default postgres)
//   BENCH_KINDS   suspended, completed (the same runs without the gate: a control) (default suspended)
//   BENCH_BUILDS  label=path of a bench-worker.mjs, comma-separated (default this=./bench-worker.mjs): a copy of
//                 bench-worker.mjs in a checkout of main measures main beside this branch, each on its own server
//   BENCH_SNAPSHOTS  a directory: also writes a heap snapshot at each step (inflates RSS afterwards)
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connectRunQueue } from '@attractor/worker';
import pg from 'pg';
import { postgresAvailableForTests, startPostgresServer } from '../../../tools/postgres-server.mjs';

const list = (name, fallback) => (process.env[name] ?? fallback).split(',').filter(Boolean);
const STEPS = list('BENCH_STEPS', '0,25,50,100,200').map(Number);
const STORES = list('BENCH_STORES', 'postgres');
const KIND_NAMES = list('BENCH_KINDS', 'suspended');
const BUILDS = list('BENCH_BUILDS', `this=${new URL('./bench-worker.mjs', import.meta.url).pathname}`).map(
  (entry) => {
    const [label, path] = entry.includes('=') ? entry.split('=') : [entry, entry];
    return { label, path };
  },
);
const SNAPSHOTS = process.env.BENCH_SNAPSHOTS;

const KINDS = {
  suspended: {
    state: 'waiting',
    source: `digraph gate {
  start [shape=Mdiamond]
  work [shape=parallelogram, tool_command="true"]
  ask [shape=hexagon, label="Go on?"]
  done [shape=Msquare]
  start -> work -> ask
  ask -> done [label="[Y] Yes"]
}`,
  },
  completed: {
    state: 'success',
    source: `digraph nogate {
  start [shape=Mdiamond]
  work [shape=parallelogram, tool_command="true"]
  done [shape=Msquare]
  start -> work -> done
}`,
  },
};

/** Starts a worker; resolves with `ask(command)`, which sends a command line and reads the JSON line it answers. */
function startWorker(script, url, workdirRoot, store) {
  const child = spawn(process.execPath, ['--expose-gc', script, url, workdirRoot, '1'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_STORE: store },
  });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  const next = () => new Promise((resolve) => waiting.push(resolve));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    void next().then(() =>
      resolve({
        child,
        async ask(command) {
          const answer = next();
          child.stdin.write(`${command}\n`);
          return JSON.parse(await answer);
        },
      }),
    );
  });
}

async function waitFor(queue, state, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await queue.listRuns({ state, limit: 100_000 });
    if (runs.length >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${runs.length} of ${count} runs reached ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One series: a build's worker on a fresh server and store, measured at each step. */
async function measureSeries({ build, store, kind }) {
  const server = await startPostgresServer();
  const dir = await mkdtemp(join(tmpdir(), 'attractor-worker-bench-'));
  const queue = await connectRunQueue({ url: server.url });
  const probe = new pg.Client({ connectionString: server.url });
  await probe.connect();
  const rows = [];
  try {
    const worker = await startWorker(build.path, server.url, dir, store);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    let enqueued = 0;
    for (const step of STEPS) {
      for (; enqueued < step; enqueued += 1) {
        await queue.enqueueRun({ source: KINDS[kind].source, graphName: kind });
      }
      await waitFor(queue, KINDS[kind].state, step, 20 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const memory = await worker.ask('measure');
      // Every client connection but the probe's; the queue of this process holds at most 4 of them.
      const { rows: connections } = await probe.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      rows.push({
        runs: step,
        rssMb: memory.rss / 2 ** 20,
        heapUsedMb: memory.heapUsed / 2 ** 20,
        heapObjectsMb: (memory.heapUsed - memory.heapCode) / 2 ** 20,
        heapCodeMb: memory.heapCode / 2 ** 20,
        connections: connections[0].n,
        handles: Object.values(memory.handles).reduce((sum, count) => sum + count, 0),
      });
      process.stderr.write(`  ${build.label} ${store} ${kind} ${step}: ${JSON.stringify(rows.at(-1))}\n`);
      if (SNAPSHOTS !== undefined) {
        await worker.ask(
          `snapshot ${join(SNAPSHOTS, `${build.label}-${store}-${kind}-${step}.heapsnapshot`)}`,
        );
      }
    }
    await new Promise((resolve) => {
      worker.child.removeAllListeners('exit');
      worker.child.once('exit', resolve);
      worker.child.kill('SIGTERM');
    });
    return rows;
  } finally {
    await probe.end();
    await queue.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Growth per run (least squares) over the steps from the second on: the first runs absorb the warm-up. */
export function slopePerRun(rows, key) {
  const used = rows.length > 2 ? rows.slice(rows.findIndex((row) => row.runs > 0)) : rows;
  const meanX = used.reduce((sum, row) => sum + row.runs, 0) / used.length;
  const meanY = used.reduce((sum, row) => sum + row[key], 0) / used.length;
  let num = 0;
  let den = 0;
  for (const row of used) {
    num += (row.runs - meanX) * (row[key] - meanY);
    den += (row.runs - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Runs every series (stores × kinds × builds, builds side by side) and prints the table. */
export async function suspendedMemoryBenchmark() {
  const series = [];
  for (const store of STORES) {
    for (const kind of KIND_NAMES) {
      for (const build of BUILDS)
        series.push({ build, store, kind, rows: await measureSeries({ build, store, kind }) });
    }
  }
  console.log(
    '\nOne worker (concurrency 1) after forced GC, by runs suspended at a gate (or completed: the control)',
  );
  console.log(
    'build | store | runs | n | RSS MB | V8 heap used MB | of which objects MB | of which code MB | PG connections | handles',
  );
  console.log('--- | --- | --- | --: | --: | --: | --: | --: | --: | --:');
  for (const { build, store, kind, rows } of series) {
    for (const row of rows) {
      console.log(
        `${build.label} | ${store} | ${kind} | ${row.runs} | ${row.rssMb.toFixed(1)} | ${row.heapUsedMb.toFixed(2)} | ${row.heapObjectsMb.toFixed(2)} | ${row.heapCodeMb.toFixed(2)} | ${row.connections} | ${row.handles}`,
      );
    }
  }
  const first = STEPS.find((step) => step > 0);
  console.log(`\nGrowth per run from ${first} to ${STEPS.at(-1)} runs (least squares), KB per run:`);
  console.log(
    'build | store | runs | RSS | V8 heap used | heap objects | heap code | PG connections per run | handles per run',
  );
  console.log('--- | --- | --- | --: | --: | --: | --: | --: | --:');
  for (const { build, store, kind, rows } of series) {
    const kb = (key) => (slopePerRun(rows, key) * 1024).toFixed(1);
    console.log(
      `${build.label} | ${store} | ${kind} | ${kb('rssMb')} | ${kb('heapUsedMb')} | ${kb('heapObjectsMb')} | ${kb('heapCodeMb')} | ${slopePerRun(rows, 'connections').toFixed(3)} | ${slopePerRun(rows, 'handles').toFixed(3)}`,
    );
  }
  return series;
}

if (
  import.meta.url === `file://${process.argv[1]}` &&
  postgresAvailableForTests('the suspended-runs memory benchmark')
) {
  await suspendedMemoryBenchmark();
}
