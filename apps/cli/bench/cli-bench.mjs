// How the CLI feels to a user (issue 8 target: `attractor validate` of a 100-node file under 0.5 s wall and
// 100 MB peak RSS). Runs each command 5 times in a fresh process and prints the median wall time and the
// largest peak RSS, as a table and as JSON (bench-results/cli.json).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
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
process.on('exit', () => process.stderr.write('BENCH_RSS_KB=' + process.resourceUsage().maxRSS + '\\n'));
await import(${JSON.stringify(bin)});`;

function measure(name, args) {
  const walls = [];
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
    if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`);
    rssKb = Math.max(rssKb, Number(/BENCH_RSS_KB=(\d+)/.exec(result.stderr)?.[1] ?? 0));
  }
  walls.sort((a, b) => a - b);
  return { name, medianWallMs: Math.round(walls[2]), peakRssMb: Math.round(rssKb / 1024) };
}

const results = [
  measure('validate 100-node chain', ['validate', chain(100)]),
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
mkdirSync('bench-results', { recursive: true });
writeFileSync(join('bench-results', 'cli.json'), `${JSON.stringify(results, null, 2)}\n`);
