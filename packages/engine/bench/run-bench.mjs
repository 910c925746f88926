#!/usr/bin/env node
// Engine benchmark (issue 4): no-op handlers, checkpointing on, real file run store.
// Usage: node bench/run-bench.mjs                       -> runs every scenario, each in its own process (peak RSS per scenario)
//        node bench/run-bench.mjs <scenario> [<baseDir>] -> runs one scenario and prints a JSON line; with a base
//        directory the run directory is left in it (for the caller to remove)
// Run directories go under this package's `.attractor/` (gitignored), as a real run's go under `./.attractor/runs/`
// of its project, or under $ATTRACTOR_BENCH_DIR. Not /tmp: on a shared machine /tmp is churned by every other
// process's temp files, and on ext4 without a journal each file creation then scans past the recently freed inodes
// of /tmp's block group (measured here: 220-400 us of kernel time per node in /tmp, 80-100 us in the project).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const SCENARIOS = {
  'chain-1000': { kind: 'chain', nodes: 1_000 },
  'chain-10000': { kind: 'chain', nodes: 10_000 },
  'loop-10000': { kind: 'loop', iterations: 10_000 },
  'chain-1000-fsync': { kind: 'chain', nodes: 1_000, fsync: true },
  // Engine cost alone: a store that serialises the checkpoint and events (as the file store does) but writes nothing.
  'chain-10000-no-io': { kind: 'chain', nodes: 10_000, noIo: true },
  'loop-10000-no-io': { kind: 'loop', iterations: 10_000, noIo: true },
};

/** A RunStore that does the serialisation work of the file store without touching the disk. */
function createNoIoStore(logsRoot) {
  let checkpointBytes = 0;
  let eventsBytes = 0;
  return {
    logsRoot,
    stats: () => ({ checkpointBytes, eventsBytes }),
    readManifest: async () => undefined,
    writeManifest: (manifest) => void JSON.stringify(manifest),
    readCheckpoint: async () => undefined,
    writeCheckpoint: (checkpoint) => {
      checkpointBytes = JSON.stringify(checkpoint).length;
    },
    appendEvents: (events) => {
      for (const event of events) eventsBytes += JSON.stringify(event).length + 1;
    },
    readEvents: async () => [],
    readCheckpointHistory: async () => [],
    readLastEventSeq: async () => 0,
    acquireLock: async ({ since }) => ({
      holder: { pid: process.pid, host: 'bench', since },
      setProcessGroups: async () => {},
      release: async () => {},
    }),
    readLock: async () => undefined,
    prepareStage: () => {},
    // No-op handlers write no files: a directory that is never created is enough.
    localStageDirectory: async (stagePath) => ({ path: `${logsRoot}/${stagePath}`, sync: async () => {} }),
    writeStageFile: async () => {},
    appendStageFile: async () => {},
    removeStageFile: async () => {},
    readStageFile: async () => undefined,
    openStageFile: async () => undefined,
    listStageFiles: async () => [],
    listStages: async () => [],
    writeStageStatus: (_stagePath, status) => void JSON.stringify(status, null, 2),
    readStageStatus: async () => undefined,
    writeArtifact: async () => {},
    readArtifact: async () => undefined,
    removeArtifact: async () => {},
    listArtifacts: async () => [],
    child: () => createNoIoStore(`${logsRoot}/child`),
    close: () => {},
  };
}

/** Where run directories are created (see the header). */
function benchRoot() {
  const root =
    process.env.ATTRACTOR_BENCH_DIR ??
    join(dirname(fileURLToPath(import.meta.url)), '..', '.attractor', 'bench');
  mkdirSync(root, { recursive: true });
  return root;
}

async function runScenario(name, baseDir) {
  const { HandlerRegistry, runPipeline } = await import('../dist/index.js');
  const { createChainGraph, createTestGraph } = await import('../dist/test/index.js');
  const scenario = SCENARIOS[name];
  const dir = mkdtempSync(join(baseDir ?? benchRoot(), 'run-'));
  const logsRoot = join(dir, 'run');
  const stamps = [];
  let graph;
  let handler;
  if (scenario.kind === 'chain') {
    graph = createChainGraph(scenario.nodes);
    handler = {
      execute: async () => {
        stamps.push(performance.now());
        return { status: 'success' };
      },
    };
  } else {
    graph = createTestGraph({
      id: 'loop',
      settings: { maxNodeVisits: scenario.iterations + 10, maxSteps: scenario.iterations + 10 },
      edges: [
        'start -> work',
        { from: 'work', to: 'work', condition: 'outcome=success' },
        { from: 'work', to: 'exit', condition: 'outcome=done' },
      ],
    });
    let count = 0;
    handler = {
      execute: async () => {
        stamps.push(performance.now());
        count += 1;
        return { status: count >= scenario.iterations ? 'done' : 'success' };
      },
    };
  }
  const registry = new HandlerRegistry({ defaultHandler: handler });
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const noIoStore = scenario.noIo ? createNoIoStore(logsRoot) : undefined;
  const result = await runPipeline({
    graph,
    registry,
    logsRoot,
    fsync: scenario.fsync ?? false,
    ...(noIoStore === undefined ? {} : { createRunStore: () => noIoStore }),
  });
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  if (result.status !== 'success') throw new Error(`${name}: run ${result.status}: ${result.failureReason}`);
  const executions = result.completedNodes.length;
  const gaps = stamps.slice(1).map((stamp, index) => (stamp - stamps[index]) * 1000);
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const early = median(gaps.slice(0, 100));
  const late = median(gaps.slice(-100));
  const { checkpointBytes, eventsBytes } = noIoStore?.stats() ?? {
    checkpointBytes: statSync(join(logsRoot, 'checkpoint.json')).size,
    eventsBytes: statSync(join(logsRoot, 'events.jsonl')).size,
  };
  const floorUs = measureFsFloor(dir, checkpointBytes);
  // Deleting ~20,000 files makes the next inode allocations in this block group slow for a while (ext4 without a
  // journal skips recently freed inodes), so a run started from the table removes its directories at the very end.
  if (baseDir === undefined) rmSync(dir, { recursive: true, force: true });
  return {
    scenario: name,
    executions,
    totalMs: Math.round(totalMs),
    usPerNode: Math.round((totalMs * 1000) / executions),
    cpuUserUsPerNode: Math.round(cpu.user / executions),
    cpuSysUsPerNode: Math.round(cpu.system / executions),
    medianUsFirst100: Math.round(early),
    medianUsLast100: Math.round(late),
    fsFloorUs: Math.round(floorUs),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    load1: Math.round(loadavg()[0] * 100) / 100,
    checkpointBytes,
    eventsBytes,
  };
}

/**
 * The file-system work one node needs at minimum, measured now on this machine: write a new status.json, write the
 * checkpoint to a temp file, unlink + rename it into place. Makes numbers comparable across loaded/idle machines.
 */
function measureFsFloor(dir, checkpointBytes) {
  const floorDir = join(dir, 'floor');
  mkdirSync(floorDir);
  const body = 'x'.repeat(checkpointBytes);
  const rounds = 300;
  const started = performance.now();
  for (let index = 0; index < rounds; index++) {
    mkdirSync(join(floorDir, `n${index}`));
    writeFileSync(join(floorDir, `n${index}`, 'status.json'), '{\n  "outcome": "success"\n}\n');
    writeFileSync(join(floorDir, 'tmp'), body);
    rmSync(join(floorDir, 'checkpoint.json'), { force: true });
    renameSync(join(floorDir, 'tmp'), join(floorDir, 'checkpoint.json'));
  }
  return ((performance.now() - started) * 1000) / rounds;
}

const requested = process.argv[2];
if (requested !== undefined) {
  console.log(JSON.stringify(await runScenario(requested, process.argv[3])));
} else {
  const self = fileURLToPath(import.meta.url);
  const baseDir = mkdtempSync(join(benchRoot(), 'all-'));
  try {
    const rows = Object.keys(SCENARIOS).map((name) =>
      JSON.parse(execFileSync(process.execPath, [self, name, baseDir], { encoding: 'utf8' })),
    );
    console.table(rows);
  } finally {
    rmSync(baseDir, { recursive: true, force: true });
  }
}
