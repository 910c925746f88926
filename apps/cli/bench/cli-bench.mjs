// How the CLI feels to a user (issue 8 target: `attractor validate` of a 100-node file under 0.5 s wall and
// 100 MB peak RSS). Runs each command 5 times in a fresh process through bin/attractor.js (what `pnpm exec attractor`
// runs) and prints the median and range of wall and CPU time and the largest peak RSS, as a table and as JSON
// (bench-results/cli.json). The machine's load average is printed too: wall times inflate with load.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';

const bin = fileURLToPath(new URL('../bin/attractor.js', import.meta.url));
// The largest pipeline of the shared corpus (66 KB), where the corpus is at hand (tools/corpus.mjs).
const corpus = corpusDotDirectory('the kitchen-sink rows of the CLI benchmark');
const kitchenSink = join(corpus ?? tmpdir(), '2389-research__tracker__kitchen-sink.dot');
const pipelines = fileURLToPath(new URL('../../../examples/pipelines/', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'attractor-cli-bench-'));

function chain(nodes) {
  const lines = [
    'digraph Chain {',
    '  graph [goal="Benchmark the CLI"]',
    '  start [shape=Mdiamond]',
    '  exit [shape=Msquare]',
  ];
  for (let index = 0; index < nodes; index += 1) {
    lines.push(`  n${index} [label="Stage ${index}", prompt="Do step ${index} of: $goal", max_retries=2]`);
  }
  lines.push(
    `  start -> ${Array.from({ length: nodes }, (_, index) => `n${index}`).join(' -> ')} -> exit`,
    '}',
  );
  const path = join(directory, `chain-${nodes}.dot`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

// Runs the CLI inside a wrapper that reports the process's own peak RSS on exit.
const wrapper = `process.argv = [process.argv[0], ${JSON.stringify(bin)}, ...JSON.parse(process.env.BENCH_ARGS)];
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write('BENCH_RSS_KB=' + usage.maxRSS + ' BENCH_CPU_US=' + (usage.userCPUTime + usage.systemCPUTime) + '\\n');
});
await import(${JSON.stringify(bin)});`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values) => `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}`;

function measure(name, args, expectedStatus = 0) {
  const walls = [];
  const cpus = [];
  let rssKb = 0;
  for (let run = 0; run < 5; run += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', wrapper], {
      cwd: directory,
      env: {
        ...process.env,
        BENCH_ARGS: JSON.stringify(typeof args === 'function' ? args(run) : args),
        NO_COLOR: '1',
      },
      encoding: 'utf8',
    });
    walls.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== expectedStatus)
      throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
    rssKb = Math.max(rssKb, Number(/BENCH_RSS_KB=(\d+)/.exec(result.stderr)?.[1] ?? 0));
    cpus.push(Number(/BENCH_CPU_US=(\d+)/.exec(result.stderr)?.[1] ?? 0) / 1000);
  }
  return {
    name,
    medianWallMs: Math.round(median(walls)),
    wallRangeMs: range(walls),
    medianCpuMs: Math.round(median(cpus)),
    cpuRangeMs: range(cpus),
    peakRssMb: Math.round(rssKb / 1024),
  };
}

const results = [
  measure('validate 100-node chain', ['validate', chain(100)]),
  ...(existsSync(kitchenSink)
    ? [measure('validate kitchen-sink.dot (66 KB, corpus)', ['validate', kitchenSink])]
    : []),
  measure('validate build-and-test.dot', ['validate', join(pipelines, 'build-and-test.dot')]),
  measure('run --simulate 1,000-node chain', (run) => [
    'run',
    chain(1000),
    '--simulate',
    '--quiet',
    '--max-steps',
    '2000',
    '--logs-dir',
    join(directory, 'runs', String(run)),
  ]),
];
console.table(results);
console.log(
  `load average: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')}`,
);
mkdirSync('bench-results', { recursive: true });
writeFileSync(join('bench-results', 'cli.json'), `${JSON.stringify(results, null, 2)}\n`);
