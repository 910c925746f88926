#!/usr/bin/env node
// Repository-wide benchmarks (issue 8). Run with `pnpm bench` at the root (after a build), or
// `node bench/run-bench.mjs [scenario...]` here. Every measurement runs in a child process of its own, so a peak RSS
// is that process's own. Prints a table and writes bench-results/bench-<time>.json (gitignored).
//
//   prepare-N      parse + build + validate (prepareGraph) of a generated N-node pipeline: MB/s, peak RSS
//   engine         the engine package's own bench (bench/run-bench.mjs there): 1,000-node chain, 10,000-iteration loop
//   parallel       200 branches of `sleep 0.05` tool nodes at max_parallel=50: wall over the ideal 0.2 s (target <= 1.5x)
//   checkpoint-S   one checkpoint write with S bytes of context values (target < 5 ms at 1 MB)
//   cli-*          the built `attractor` binary as a user runs it: wall, CPU and peak RSS
//                  (target: validate < 0.5 s wall and < 100 MB)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import { chainPipeline, generatedPipeline, parallelPipeline } from './generate-pipelines.mjs';

const self = fileURLToPath(import.meta.url);
const packageDir = path.resolve(path.dirname(self), '..');
const repoRoot = path.resolve(packageDir, '..', '..');
const cliBin = path.join(repoRoot, 'apps', 'cli', 'bin', 'attractor.js');
const corpusDir = corpusDotDirectory('the corpus rows of the benchmark') ?? path.join(repoRoot, 'no-corpus');
const KB = 1024;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;
const cpuMs = (usage) => (usage.user + usage.system) / 1000;

/**
 * Wall and CPU time of `count` `sh -c "<command>"` processes, `concurrency` at a time, started with plain
 * `node:child_process.spawn` and nothing of ours around them: the floor under any runner in a process of this size
 * (fork copies the page tables of the process's anonymous memory, so a bigger process starts commands slower).
 */
async function spawnFloor(count, concurrency, command) {
  const { spawn } = await import('node:child_process');
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await new Promise((resolve, reject) => {
        const child = spawn('sh', ['-c', command], { stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', resolve);
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ms: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpuBefore)) };
}

/**
 * Where run directories of the in-process scenarios go: this package's `.attractor/` (gitignored), as a real run's
 * go under `./.attractor/runs/` of its project. Not /tmp: on a shared machine /tmp is churned by every other
 * process's temp files, and on ext4 without a journal each file creation then scans past the recently freed inodes
 * of its block group, for minutes after a large delete. For the same reason a full run gives every scenario a
 * directory under one base directory (ATTRACTOR_BENCH_DIR) and deletes it only at the very end: a scenario that
 * removed its ~20,000 files would slow down the file creations of the next one.
 */
const sharedBase = process.env.ATTRACTOR_BENCH_DIR;
function benchDir(prefix) {
  const root = sharedBase ?? path.join(packageDir, '.attractor', 'bench');
  mkdirSync(root, { recursive: true });
  return mkdtempSync(path.join(root, prefix));
}

/** Removes a scenario's directory, unless the whole base directory is removed at the end of a full run. */
function removeBenchDir(dir) {
  if (sharedBase === undefined) rmSync(dir, { recursive: true, force: true });
}

/** Scenarios that run inside this (child) process and return one result object. */
const INPROCESS = {
  async prepare(nodes) {
    const { prepareGraph } = await import('@attractor/graph');
    const source = generatedPipeline(nodes);
    const bytes = Buffer.byteLength(source);
    let started = performance.now();
    let cpuBefore = process.cpuUsage();
    const prepared = prepareGraph(source, { filename: `generated-${nodes}.dot` });
    const coldMs = performance.now() - started;
    const coldCpuMs = cpuMs(process.cpuUsage(cpuBefore));
    const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    if (errors.length > 0) throw new Error(`generated pipeline has errors: ${errors[0].message}`);
    const rss = peakRssMb();
    const warm = [];
    const warmCpu = [];
    for (let run = 0; run < (nodes >= 10_000 ? 2 : 5); run++) {
      started = performance.now();
      cpuBefore = process.cpuUsage();
      prepareGraph(source, { filename: `generated-${nodes}.dot` });
      warm.push(performance.now() - started);
      warmCpu.push(cpuMs(process.cpuUsage(cpuBefore)));
    }
    const warmMs = median(warm);
    const warmCpuMs = median(warmCpu);
    return {
      nodes: prepared.graph.nodes.size,
      bytes,
      coldMs,
      warmMs,
      coldCpuMs,
      warmCpuMs,
      coldMbPerS: bytes / 1e6 / (coldMs / 1000),
      warmMbPerS: bytes / 1e6 / (warmMs / 1000),
      warmCpuMbPerS: bytes / 1e6 / (warmCpuMs / 1000),
      peakRssMb: rss,
    };
  },

  /**
   * The operating system's floor, without Node: `xargs -P 50` (a small C program) starting 200 `sh -c "sleep 0.05"`
   * (3 rounds, wall time of the whole pipeline `seq | xargs`). No runner that starts its commands through a shell, as
   * docs/architecture.md "Tool nodes" requires, can be faster on this machine. Undefined where `xargs` is
   * missing.
   */
  async 'os-floor'() {
    const { spawnSync } = await import('node:child_process');
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      const result = spawnSync('sh', ['-c', `seq 200 | xargs -P 50 -I{} sh -c 'sleep 0.05'`], {
        stdio: 'ignore',
      });
      if (result.status !== 0) return { rounds: undefined };
      rounds.push({ ms: performance.now() - started });
    }
    return { rounds };
  },

  /** The machine's floor: 200 plain spawns at 50, in a process that loaded nothing else (3 rounds). */
  async 'spawn-floor'() {
    const rounds = [];
    for (let round = 0; round < 3; round++) rounds.push(await spawnFloor(200, 50, 'sleep 0.05'));
    return { rounds, rssMb: process.memoryUsage().rss / 1e6 };
  },

  /**
   * 200 tool branches at max_parallel=50, 3 runs, each after the plain-spawn floor measured in this same process
   * (same size, same moment). Run directories are removed only at the end, so no run pays for the previous one's.
   */
  async parallel() {
    const { runPipeline } = await import('@attractor/engine');
    const { prepareGraph } = await import('@attractor/graph');
    const { createDefaultRegistry } = await import('@attractor/handlers');
    const dir = benchDir('parallel-');
    try {
      const prepared = prepareGraph(
        parallelPipeline({ branches: 200, maxParallel: 50, command: 'sleep 0.05' }),
      );
      const runs = [];
      for (let round = 0; round < 3; round++) {
        const floor = await spawnFloor(200, 50, 'sleep 0.05');
        let parallelMs;
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        const result = await runPipeline({
          graph: prepared.graph,
          registry: createDefaultRegistry(),
          logsRoot: path.join(dir, `run-${round}`),
          workdir: dir,
          onEvent: (event) => {
            if (event.type === 'stage.completed' && event.nodeId === 'fan') parallelMs = event.durationMs;
          },
        });
        const totalMs = performance.now() - started;
        const runCpuMs = cpuMs(process.cpuUsage(cpuBefore));
        if (result.status !== 'success')
          throw new Error(`parallel run ${result.status}: ${result.failureReason}`);
        runs.push({ floorMs: floor.ms, floorCpuMs: floor.cpuMs, parallelMs, totalMs, cpuMs: runCpuMs });
      }
      const idealMs = (200 / 50) * 50;
      const parallelMs = median(runs.map((run) => run.parallelMs));
      const floorMs = median(runs.map((run) => run.floorMs));
      return {
        branches: 200,
        maxParallel: 50,
        idealMs,
        runs,
        parallelMs,
        floorMs,
        ratio: parallelMs / idealMs,
        ratioToFloor: median(runs.map((run) => run.parallelMs / run.floorMs)),
        peakRssMb: peakRssMb(),
        load: os.loadavg()[0],
      };
    } finally {
      removeBenchDir(dir);
    }
  },

  async checkpoint(bytes) {
    const { createFileRunStore, CHECKPOINT_VERSION } = await import('@attractor/engine');
    const dir = benchDir('checkpoint-');
    try {
      // 64 context values (prompts, responses, tool output) that add up to `bytes`.
      const context = {};
      const valueBytes = Math.max(1, Math.floor(bytes / 64));
      for (let index = 0; index < 64; index++) context[`stage_${index}.response`] = 'x'.repeat(valueBytes);
      const checkpoint = {
        version: CHECKPOINT_VERSION,
        timestamp: new Date(0).toISOString(),
        run_id: 'bench',
        graph_sha256: '0'.repeat(64),
        state: 'running',
        current_node: 'stage_63',
        next_node: 'exit',
        next_edge_index: 64,
        completed_nodes: Array.from({ length: 64 }, (_, index) => `stage_${index}`),
        step_count: 64,
        node_retries: {},
        node_visits: {},
        node_outcomes: {},
        gate_retries: 0,
        fallbacks_taken: [],
        failure_streaks: {},
        last_fidelity: null,
        recent_stages: [],
        context,
        logs: [],
        last_seq: 0,
      };
      const store = createFileRunStore({ logsRoot: dir });
      const times = [];
      for (let run = 0; run < 30; run++) {
        const started = performance.now();
        await store.writeCheckpoint(checkpoint);
        times.push(performance.now() - started);
      }
      const sizeBytes = statSync(path.join(dir, 'checkpoint.json')).size;
      await store.close();
      return {
        contextBytes: bytes,
        checkpointBytes: sizeBytes,
        medianMs: median(times),
        maxMs: Math.max(...times),
      };
    } finally {
      removeBenchDir(dir);
    }
  },
};

/** Runs one in-process scenario in a child process and returns its JSON. */
function child(name, arg) {
  const output = execFileSync(process.execPath, [self, '--child', name, String(arg ?? '')], {
    cwd: packageDir,
    env: { ...process.env, ATTRACTOR_BENCH_DIR: fullRunBase },
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  return JSON.parse(output.trim().split('\n').at(-1));
}

/** Runs the CLI `times` times under /usr/bin/time (GNU time): median wall and CPU, max peak RSS. */
function cli(args, cwd, times = 3) {
  const runs = [];
  for (let run = 0; run < times; run++) {
    const result = spawnSync(
      '/usr/bin/time',
      ['-f', 'TIME %e %U %S %M', process.execPath, cliBin, ...args(run)],
      {
        cwd,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    const line = result.stderr.split('\n').findLast((text) => text.startsWith('TIME '));
    if (line === undefined)
      throw new Error(`attractor ${args(run).join(' ')} failed: ${result.stderr.slice(-500)}`);
    const [wall, user, system, rssKb] = line.slice(5).split(' ').map(Number);
    runs.push({ wallS: wall, cpuS: user + system, rssMb: rssKb / 1024, exitCode: result.status });
  }
  return {
    wallS: median(runs.map((run) => run.wallS)),
    cpuS: median(runs.map((run) => run.cpuS)),
    peakRssMb: Math.max(...runs.map((run) => run.rssMb)),
    exitCodes: [...new Set(runs.map((run) => run.exitCode))],
  };
}

if (process.argv[2] === '--child') {
  const [, , , name, arg] = process.argv;
  const result = await INPROCESS[name](arg === '' ? undefined : Number(arg));
  console.log(JSON.stringify(result));
  process.exit(0);
}

for (const required of [
  path.join(repoRoot, 'apps', 'cli', 'dist', 'attractor.mjs'),
  path.join(repoRoot, 'packages', 'engine', 'dist', 'index.js'),
]) {
  if (!existsSync(required)) {
    console.error(`Build first: ${required} is missing (pnpm build).`);
    process.exit(1);
  }
}

// One base directory for every scenario of this run, removed when the run ends (see benchDir).
const benchRoot = path.join(packageDir, '.attractor', 'bench');
mkdirSync(benchRoot, { recursive: true });
const fullRunBase = mkdtempSync(path.join(benchRoot, 'all-'));
process.once('exit', () => rmSync(fullRunBase, { recursive: true, force: true }));

const rows = [];
const results = {};
const row = (benchmark, measured, target, ok) =>
  rows.push({ benchmark, measured, target, result: ok === undefined ? '' : ok ? 'met' : 'MISSED' });

// parse + build + validate
for (const nodes of [100, 1_000, 10_000]) {
  const result = child('prepare', nodes);
  results[`prepare-${nodes}`] = result;
  row(
    `prepareGraph ${nodes} nodes (${(result.bytes / 1e6).toFixed(2)} MB)`,
    `cold ${result.coldMs.toFixed(0)} ms wall / ${result.coldCpuMs.toFixed(0)} ms CPU; warm ${result.warmMs.toFixed(0)} ms wall (${result.warmMbPerS.toFixed(2)} MB/s) / ${result.warmCpuMs.toFixed(0)} ms CPU (${result.warmCpuMbPerS.toFixed(2)} MB/s); peak RSS ${result.peakRssMb.toFixed(0)} MB`,
    nodes === 10_000 ? '>= 0.5 MB/s (CPU), < 150 MB' : '',
    nodes === 10_000 ? result.warmCpuMbPerS >= 0.5 && result.peakRssMb < 150 : undefined,
  );
}

// engine overhead: the engine package's own benchmark, one scenario per process
const engineBench = path.join(repoRoot, 'packages', 'engine', 'bench', 'run-bench.mjs');
for (const scenario of ['chain-1000', 'loop-10000']) {
  const output = execFileSync(process.execPath, [engineBench, scenario, fullRunBase], { encoding: 'utf8' });
  const result = JSON.parse(output.trim().split('\n').at(-1));
  results[`engine-${scenario}`] = result;
  const growth = result.medianUsLast100 / Math.max(1, result.medianUsFirst100);
  row(
    `engine ${scenario} (no-op handlers)`,
    `${result.usPerNode} µs/node (fs floor ${result.fsFloorUs} µs); median first/last 100: ${result.medianUsFirst100}/${result.medianUsLast100} µs (growth ${growth.toFixed(2)}x); peak RSS ${result.peakRssMb} MB`,
    'flat growth',
    growth < 2,
  );
}

// parallel
{
  const os = child('os-floor');
  results['os-floor'] = os;
  if (os.rounds !== undefined) {
    const osMs = os.rounds.map((round) => round.ms);
    row(
      'floor: 200 x `sh -c "sleep 0.05"` at 50 from `xargs -P 50` (no Node)',
      `median ${median(osMs).toFixed(0)} ms (${Math.min(...osMs).toFixed(0)}-${Math.max(...osMs).toFixed(0)}) = ${(median(osMs) / 200).toFixed(2)}x the ideal 200 ms`,
      '',
    );
  }
  const bare = child('spawn-floor');
  results['spawn-floor'] = bare;
  const bareMs = bare.rounds.map((round) => round.ms);
  const range = (values) => `${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)}`;
  row(
    'floor: 200 x plain spawn `sh -c "sleep 0.05"` at 50, bare process',
    `median ${median(bareMs).toFixed(0)} ms (${range(bareMs)}) = ${(median(bareMs) / 200).toFixed(2)}x the ideal 200 ms; parent CPU ${median(bare.rounds.map((round) => round.cpuMs)).toFixed(0)} ms; RSS ${bare.rssMb.toFixed(0)} MB`,
    '',
  );
  const result = child('parallel');
  results.parallel = result;
  row(
    '200 x `sleep 0.05` tool branches, max_parallel=50',
    `median ${result.parallelMs} ms (${range(result.runs.map((run) => run.parallelMs))}) = ${result.ratio.toFixed(2)}x the ideal ${result.idealMs} ms; ${result.ratioToFloor.toFixed(2)}x the plain-spawn floor in the same process (${range(result.runs.map((run) => run.floorMs))} ms) and ${(result.parallelMs / median(bareMs)).toFixed(2)}x the bare floor; CPU ${median(result.runs.map((run) => run.cpuMs)).toFixed(0)} ms (floor ${median(result.runs.map((run) => run.floorCpuMs)).toFixed(0)} ms)`,
    '<= 1.5x',
    result.ratio <= 1.5,
  );
}

// checkpoint cost against context size
for (const bytes of [KB, 10 * KB, 100 * KB, KB * KB]) {
  const result = child('checkpoint', bytes);
  results[`checkpoint-${bytes}`] = result;
  row(
    `checkpoint write, ${bytes >= KB * KB ? '1 MB' : `${bytes / KB} KB`} of context`,
    `median ${result.medianMs.toFixed(2)} ms (max ${result.maxMs.toFixed(2)}), file ${(result.checkpointBytes / KB).toFixed(0)} KB`,
    bytes === KB * KB ? '< 5 ms' : '',
    bytes === KB * KB ? result.medianMs < 5 : undefined,
  );
}

// the CLI as a user feels it
{
  const dir = mkdtempSync(path.join(tmpdir(), 'attractor-bench-cli-'));
  try {
    const largest = existsSync(corpusDir)
      ? readdirSync(corpusDir)
          .filter((name) => name.endsWith('.dot'))
          .map((name) => path.join(corpusDir, name))
          .sort((a, b) => statSync(b).size - statSync(a).size)[0]
      : undefined;
    const hundred = path.join(dir, 'generated-100.dot');
    writeFileSync(hundred, generatedPipeline(100));
    const chain = path.join(dir, 'chain-1000.dot');
    writeFileSync(chain, chainPipeline(1_000));
    const cases = [
      ...(largest === undefined
        ? []
        : [
            [
              `validate ${path.basename(largest)} (${(statSync(largest).size / KB).toFixed(0)} KB)`,
              () => ['validate', largest],
              true,
            ],
          ]),
      ['validate generated 100-node pipeline', () => ['validate', hundred], true],
      [
        'run --simulate 1,000-node chain',
        (run) => ['run', '--simulate', '--quiet', '--logs-dir', path.join(dir, `run-${run}`), chain],
        false,
      ],
    ];
    for (const [name, args, isValidate] of cases) {
      const result = cli(args, dir);
      results[`cli ${name}`] = result;
      row(
        `attractor ${name}`,
        `wall ${result.wallS.toFixed(2)} s, CPU ${result.cpuS.toFixed(2)} s, peak RSS ${result.peakRssMb.toFixed(0)} MB (exit ${result.exitCodes.join('/')})`,
        isValidate ? '< 0.5 s, < 100 MB' : '',
        isValidate ? result.wallS < 0.5 && result.peakRssMb < 100 : undefined,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.table(rows);
const load = os.loadavg();
console.log(
  `load average while measuring: ${load.map((value) => value.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs (wall times inflate with load; CPU time is the steadier figure)`,
);
const resultsDir = path.join(packageDir, 'bench-results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
writeFileSync(
  path.join(resultsDir, `bench-${stamp}.json`),
  `${JSON.stringify({ node: process.version, cpus: os.cpus().length, loadAverage: load, rows, results }, null, 2)}\n`,
);
console.log(`written: bench-results/bench-${stamp}.json`);
