#!/usr/bin/env node
// Parse benchmark of @attractor/dot (issue 2, "Speed and memory"); run with `pnpm bench` after a build.
// Generates pipelines of 100, 1,000 and 10,000 nodes (label/prompt/max_retries on every node, a
// conditional edge chain; the 10,000-node file is about 1.4 MB) and adds the largest corpus file.
// Each input is parsed in a child process of its own so that its peak RSS is its own. Prints a table
// and writes bench-results/parse-<timestamp>.json (gitignored).
// Targets: >= 0.5 MB/s and < 150 MB peak RSS on the 1.4 MB file; the largest corpus file < 100 ms.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, '..');
const distEntry = path.join(packageDir, 'dist', 'index.js');
const WARM_RUNS = 5;

if (process.argv[2] === '--child') {
  const { parseDot } = await import(distEntry);
  const file = process.argv[3];
  const source = readFileSync(file, 'utf8');
  let started = performance.now();
  const ast = parseDot(source, { filename: path.basename(file) });
  const coldMs = performance.now() - started;
  // Peak RSS of a process that has loaded the package and parsed the file once (the AST still alive).
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const warm = [];
  const warmCpu = [];
  for (let run = 0; run < WARM_RUNS; run++) {
    const cpuBefore = process.cpuUsage();
    started = performance.now();
    parseDot(source, { filename: path.basename(file) });
    warm.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    warmCpu.push((cpu.user + cpu.system) / 1000);
  }
  warm.sort((a, b) => a - b);
  warmCpu.sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      statements: ast.statements.length,
      coldMs,
      warmMedianMs: warm[warm.length >> 1],
      warmMedianCpuMs: warmCpu[warmCpu.length >> 1],
      peakRssMb,
    }),
  );
  process.exit(0);
}

if (!existsSync(distEntry)) {
  console.error(`Build first: ${distEntry} is missing (pnpm --filter @attractor/dot build).`);
  process.exit(1);
}

/**
 * A pipeline of `count` codergen nodes between start and exit, chained by conditional edges;
 * `inCluster` wraps everything in one `subgraph cluster_all { ... }`.
 */
function generatePipeline(count, inCluster = false) {
  const lines = [
    'digraph Generated {',
    '  graph [goal="Benchmark pipeline", default_max_retries=1]',
    '  rankdir=LR',
    '',
  ];
  if (inCluster) lines.push('  subgraph cluster_all {', '  label="All"');
  lines.push('  start [shape=Mdiamond, label="Start"]', '  exit  [shape=Msquare, label="Exit"]');
  for (let index = 0; index < count; index++) {
    lines.push(
      `  stage_${index} [label="Stage ${index}", prompt="Implement step ${index} for $goal.", max_retries=2]`,
    );
  }
  lines.push('  start -> stage_0');
  for (let index = 0; index + 1 < count; index++) {
    lines.push(`  stage_${index} -> stage_${index + 1} [condition="outcome=success"]`);
  }
  lines.push(`  stage_${count - 1} -> exit [condition="outcome=success"]`);
  if (inCluster) lines.push('  }');
  lines.push('}', '');
  return lines.join('\n');
}

const workDir = path.join(tmpdir(), `attractor-dot-bench-${process.pid}`);
mkdirSync(workDir, { recursive: true });
const inputs = [];
for (const count of [100, 1_000, 10_000]) {
  const file = path.join(workDir, `generated-${count}.dot`);
  writeFileSync(file, generatePipeline(count));
  inputs.push({ name: `generated ${count} nodes`, file });
}
const clusterFile = path.join(workDir, 'generated-10000-in-cluster.dot');
writeFileSync(clusterFile, generatePipeline(10_000, true));
inputs.push({ name: 'generated 10000 nodes, one cluster', file: clusterFile });
const corpusDir = corpusDotDirectory('the corpus row of the parse benchmark');
if (corpusDir !== undefined) {
  const largest = readdirSync(corpusDir)
    .filter((name) => name.endsWith('.dot'))
    .map((name) => path.join(corpusDir, name))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (largest) inputs.push({ name: `corpus ${path.basename(largest)}`, file: largest });
} else {
  console.warn(`corpus not found at ${corpusDir}; skipping it`);
}

const results = [];
for (const input of inputs) {
  const bytes = statSync(input.file).size;
  const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', input.file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const measured = JSON.parse(output);
  const megabytes = bytes / 1_000_000;
  results.push({
    input: input.name,
    bytes,
    ...measured,
    coldMbPerSecond: megabytes / (measured.coldMs / 1000),
    warmMbPerSecond: megabytes / (measured.warmMedianMs / 1000),
  });
}

const table = results.map((result) => ({
  input: result.input,
  KB: (result.bytes / 1000).toFixed(1),
  'cold ms': result.coldMs.toFixed(1),
  'cold MB/s': result.coldMbPerSecond.toFixed(2),
  'warm ms': result.warmMedianMs.toFixed(1),
  'warm MB/s': result.warmMbPerSecond.toFixed(2),
  'warm CPU ms': result.warmMedianCpuMs.toFixed(1),
  'peak RSS MB': result.peakRssMb.toFixed(1),
}));
console.table(table);
console.log(
  `load average while measuring: ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')} (CPU time is the steadier figure on a busy machine)`,
);

const resultsDir = path.join(packageDir, 'bench-results');
mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const report = { node: process.version, warmRuns: WARM_RUNS, loadAverage: os.loadavg(), results };
writeFileSync(path.join(resultsDir, `parse-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
console.log(`written: bench-results/parse-${stamp}.json`);
