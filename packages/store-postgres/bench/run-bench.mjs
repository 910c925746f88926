#!/usr/bin/env node
// Store overhead per stage (issue 18): the engine runs the same 200-stage simulated chain with each store, and the
// time per stage is compared with the file store's (the difference is what PostgreSQL costs on top) and with an
// in-memory store's. Each stage writes `prompt.md` and `response.md` into its stage directory, as a simulated LLM
// stage does; the engine adds status.json, the checkpoint (and its history) and the events.
//
// Usage: node bench/run-bench.mjs [stages] [rounds]     (defaults: 200 stages, 5 rounds; the median round counts)
//
// PostgreSQL runs on a throw-away local server (tools/postgres-server.mjs) with PostgreSQL's default durability
// (fsync on), the store with its default (`synchronousCommit: false`) and with `synchronousCommit: true`; the file
// store without and with `fsync`. Rounds interleave the stores, so that a noisy moment on a shared machine hits all
// of them alike. Needs `pnpm build` first, and PostgreSQL (`apt-get install postgresql`).
import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createFileRunStore, HandlerRegistry, runPipeline } from '@attractor/engine';
import { createChainGraph, createMemoryRunStore } from '@attractor/engine/test';
import { postgresUnavailableReason, startPostgresServer } from '../../../tools/postgres-server.mjs';
import { createPostgresRunCatalog } from '../dist/index.js';

const stages = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 5);
const here = dirname(fileURLToPath(import.meta.url));
// Run directories under the package's gitignored `.attractor/` rather than /tmp (see the engine's bench).
const benchRoot = join(here, '..', '.attractor', 'bench');

const unavailable = postgresUnavailableReason();
if (unavailable !== undefined) {
  console.error(`store-postgres bench: ${unavailable}`);
  process.exit(1);
}

/** A simulated LLM stage: writes its prompt and response into the stage directory. */
const simulatedStage = {
  execute: async ({ node, runtime }) => {
    writeFileSync(join(runtime.stageDir, 'prompt.md'), `# ${node.id}\n\nDo the work of ${node.id}.\n`);
    writeFileSync(join(runtime.stageDir, 'response.md'), `[Simulated] Response for stage: ${node.id}\n`);
    return { status: 'success', notes: `simulated ${node.id}` };
  },
};

/** Runs the chain once with the stores `createRunStore` gives; returns milliseconds per executed stage. */
async function timeRun(createRunStore, logsRoot) {
  const registry = new HandlerRegistry({ defaultHandler: simulatedStage });
  const started = performance.now();
  const result = await runPipeline({ graph: createChainGraph(stages), registry, logsRoot, createRunStore });
  const elapsed = performance.now() - started;
  if (result.status !== 'success')
    throw new Error(`the chain ended with ${result.status}: ${result.failureReason}`);
  return elapsed / result.completedNodes.length;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

await mkdir(benchRoot, { recursive: true });
const workRoot = await mkdtemp(join(benchRoot, 'run-'));
const server = await startPostgresServer({ durable: true });
const catalogs = [
  createPostgresRunCatalog({ connectionString: server.url }),
  createPostgresRunCatalog({
    connectionString: server.url,
    schema: 'attractor_sync',
    synchronousCommit: true,
  }),
];
try {
  for (const catalog of catalogs) await catalog.migrate();
  let runNumber = 0;
  const nextRoot = () => join(workRoot, `run-${++runNumber}`);
  const stores = {
    memory: () => () => createMemoryRunStore(),
    'file store': () => (root) => createFileRunStore({ logsRoot: root }),
    'file store, fsync': () => (root) => createFileRunStore({ logsRoot: root, fsync: true }),
    PostgreSQL: () => {
      const runId = `bench-${++runNumber}`;
      return () => catalogs[0].open(runId);
    },
    'PostgreSQL, synchronousCommit': () => {
      const runId = `bench-${++runNumber}`;
      return () => catalogs[1].open(runId);
    },
  };
  // One warm-up run of each (JIT, connection pool, first-use migrations), then rounds interleaved so that a noisy
  // moment on this shared machine hits every store alike.
  for (const make of Object.values(stores)) await timeRun(make(), nextRoot());
  const samples = Object.fromEntries(Object.keys(stores).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, make] of Object.entries(stores)) samples[name].push(await timeRun(make(), nextRoot()));
  }
  const file = median(samples['file store']);
  const memory = median(samples.memory);
  const rows = Object.entries(samples).map(([name, values]) => ({
    store: name,
    'ms/stage (median)': Number(median(values).toFixed(2)),
    'vs file store': Number((median(values) - file).toFixed(2)),
    'vs memory': Number((median(values) - memory).toFixed(2)),
    min: Number(Math.min(...values).toFixed(2)),
    max: Number(Math.max(...values).toFixed(2)),
  }));
  console.log(
    `${stages}-stage simulated chain, ${rounds} rounds per store, Node ${process.version}, load ${loadavg()[0].toFixed(1)}`,
  );
  console.table(rows);
  const postgres = rows.find((row) => row.store === 'PostgreSQL');
  console.log(
    `PostgreSQL store: ${postgres['vs file store']} ms per stage more than the file store (target < 5 ms): ${postgres['vs file store'] < 5 ? 'met' : 'NOT met'}`,
  );
} finally {
  for (const catalog of catalogs) await catalog.close();
  await server.stop();
  await rm(workRoot, { recursive: true, force: true });
}
