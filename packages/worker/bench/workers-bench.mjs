// Issue 18 benchmark: queued runs of 20 stages (10 tool stages `sleep 0.1`, 10 simulated LLM stages) through 1, 2
// and 4 worker processes (concurrency 1 each) on a real PostgreSQL (store + queue): runs per minute and the p95 time
// from enqueue to start. Then the memory of one worker holding 0 to 200 runs suspended at human gates
// (suspended-memory.mjs, which also runs alone). BENCH_RUNS (default 200) and BENCH_WORKERS (default 1,2,4) change the sizes.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRunQueue } from '@attractor/worker';
import { postgresAvailableForTests, startPostgresServer } from '../../../tools/postgres-server.mjs';
import { suspendedMemoryBenchmark } from './suspended-memory.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);

if (!postgresAvailableForTests('the worker benchmark')) process.exit(0);

function pipeline() {
  const lines = ['digraph bench {', '  start [shape=Mdiamond]', '  done [shape=Msquare]'];
  let previous = 'start';
  for (let index = 1; index <= 20; index += 1) {
    const id = index % 2 === 1 ? `tool${index}` : `llm${index}`;
    lines.push(
      index % 2 === 1
        ? `  ${id} [shape=parallelogram, tool_command="sleep 0.1"]`
        : `  ${id} [prompt="Step ${index}"]`,
    );
    lines.push(`  ${previous} -> ${id}`);
    previous = id;
  }
  lines.push(`  ${previous} -> done`, '}');
  return lines.join('\n');
}

function startWorkers(url, workdirRoot, count) {
  return Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(
        process.execPath,
        [new URL('./bench-worker.mjs', import.meta.url).pathname, url, workdirRoot, '1'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      return new Promise((resolve, reject) => {
        child.stdout.once('data', () => resolve(child));
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
      });
    }),
  );
}

async function stopWorkers(workers) {
  await Promise.all(
    workers.map(
      (child) =>
        new Promise((resolve) => {
          child.removeAllListeners('exit');
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
    ),
  );
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function waitFor(queue, state, count, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await queue.listRuns({ state, limit: 100_000 });
    if (runs.length >= count) return runs;
    if (Date.now() > deadline) throw new Error(`only ${runs.length} of ${count} runs reached ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function throughput(workerCount) {
  const server = await startPostgresServer();
  const dir = await mkdtemp(join(tmpdir(), 'attractor-worker-bench-'));
  const queue = await connectRunQueue({ url: server.url });
  try {
    const workers = await startWorkers(server.url, dir, workerCount);
    const source = pipeline();
    const startedMs = Date.now();
    for (let index = 0; index < RUNS; index += 1) await queue.enqueueRun({ source, graphName: 'bench' });
    const done = await waitFor(queue, 'success', RUNS, 60 * 60_000);
    const endedMs = Math.max(...done.map((run) => Date.parse(run.endedAt)));
    const latencies = done.map((run) => Date.parse(run.startedAt) - Date.parse(run.enqueuedAt));
    await stopWorkers(workers);
    return {
      workers: workerCount,
      runsPerMinute: (RUNS / (endedMs - startedMs)) * 60_000,
      p95EnqueueToStartMs: percentile(latencies, 95),
    };
  } finally {
    await queue.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const count of WORKER_COUNTS) {
  const result = await throughput(count);
  results.push(result);
  console.log(
    `${count} worker(s): ${result.runsPerMinute.toFixed(1)} runs/min, p95 enqueue→start ${(result.p95EnqueueToStartMs / 1000).toFixed(1)} s (${RUNS} runs of 20 stages)`,
  );
}
const one = results.find((result) => result.workers === 1);
const four = results.find((result) => result.workers === 4);
if (one !== undefined && four !== undefined) {
  console.log(`4 workers / 1 worker: ${(four.runsPerMinute / one.runsPerMinute).toFixed(2)}× (target ≥ 3×)`);
}
await suspendedMemoryBenchmark();
