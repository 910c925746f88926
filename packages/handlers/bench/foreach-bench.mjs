#!/usr/bin/env node
// foreach benchmark (issue 29 "Speed"): the engine's overhead per foreach item of a no-op body, against a parallel
// branch's (one fan-out edge per item) with the same no-op stage, real file run store, checkpoints on.
// Usage: node bench/foreach-bench.mjs [items]   (default 1000; build first: pnpm turbo run build --filter=@attractor/handlers...)
// Run directories go under this package's `.attractor/bench/` (gitignored) or $ATTRACTOR_BENCH_DIR, removed afterwards.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { defineHandler, runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '../dist/index.js';

const items = Number(process.argv[2] ?? 1000);
const root =
  process.env.ATTRACTOR_BENCH_DIR ??
  join(dirname(fileURLToPath(import.meta.url)), '..', '.attractor', 'bench');
mkdirSync(root, { recursive: true });

const ids = Array.from({ length: items }, (_, index) => `w${index}`);
const SOURCES = {
  parallel: `digraph P {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fan [shape=component, max_parallel=4]
  join [shape=tripleoctagon, join_merge=none]
${ids.map((id) => `  ${id} [type="noop"]`).join('\n')}
  start -> fan
${ids.map((id) => `  fan -> ${id} -> join`).join('\n')}
  join -> exit
}`,
  foreach: `digraph F {
  graph [state="files: append"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="files", max_parallel=4]
  work [type="noop"]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> work -> join -> exit
}`,
};

async function measure(kind) {
  const { graph } = prepareGraph(SOURCES[kind]);
  const registry = createDefaultRegistry();
  registry.register('noop', defineHandler({ type: 'noop', execute: async () => ({ status: 'success' }) }));
  const dir = mkdtempSync(join(root, `${kind}-`));
  try {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const result = await runPipeline({
      graph,
      registry,
      logsRoot: join(dir, 'run'),
      context: { files: ids },
    });
    const totalMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuStart);
    if (result.status !== 'success')
      throw new Error(`${kind}: run ${result.status}: ${result.failureReason}`);
    return { totalMs, perItemMs: totalMs / items, cpuPerItemMs: (cpu.user + cpu.system) / 1000 / items };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const parallel = await measure('parallel');
const foreach = await measure('foreach');
const round = (value) => Math.round(value * 100) / 100;
console.log(
  JSON.stringify({
    items,
    load: round(loadavg()[0]),
    parallel: { perBranchMs: round(parallel.perItemMs), cpuPerBranchMs: round(parallel.cpuPerItemMs) },
    foreach: { perItemMs: round(foreach.perItemMs), cpuPerItemMs: round(foreach.cpuPerItemMs) },
    ratio: round(foreach.perItemMs / parallel.perItemMs),
    cpuRatio: round(foreach.cpuPerItemMs / parallel.cpuPerItemMs),
  }),
);
