#!/usr/bin/env node
// Side-by-side engine benchmark: this build against another build of @attractor/engine (an older checkout, a branch),
// in one run, rounds interleaved so that both see the same machine.
// Usage: node bench/compare.mjs <other engine package dir> [--rounds N] [scenario ...]
//   e.g. git worktree add ../before e9384dd && (cd ../before && pnpm install && pnpm build)
//        node bench/compare.mjs ../before/packages/engine --rounds 5 chain-1000 chain-10000 loop-10000
// Each round runs every scenario once per build, alternating which build goes first; the run directories are kept
// until the very end (deleting ~20,000 files slows the next file creations on ext4, see run-bench.mjs). Prints the
// median of each column per scenario and build, every round's µs/node, and the median of the rounds' ratios.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '3' } },
});
const [otherDirectory, ...requested] = positionals;
if (otherDirectory === undefined) {
  console.error('Usage: node bench/compare.mjs <other engine package dir> [--rounds N] [scenario ...]');
  process.exit(2);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`--rounds must be a whole number of at least 1, not "${values.rounds}"`);
  process.exit(2);
}
const thisDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');
const builds = [
  { label: 'other', directory: resolve(otherDirectory) },
  { label: 'this', directory: thisDirectory },
];
for (const build of builds) {
  if (
    !existsSync(join(build.directory, 'bench', 'run-bench.mjs')) ||
    !existsSync(join(build.directory, 'dist'))
  ) {
    console.error(
      `${build.directory} is not a built @attractor/engine package (bench/run-bench.mjs and dist/)`,
    );
    process.exit(2);
  }
}
const scenarios = requested.length > 0 ? requested : ['chain-1000', 'chain-10000', 'loop-10000'];

const root = process.env.ATTRACTOR_BENCH_DIR ?? join(thisDirectory, '.attractor', 'bench');
mkdirSync(root, { recursive: true });
const keep = mkdtempSync(join(root, 'compare-'));
const results = new Map();
try {
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const directory = join(keep, build.label);
        mkdirSync(directory, { recursive: true });
        const line = execFileSync(
          process.execPath,
          [join(build.directory, 'bench', 'run-bench.mjs'), scenario, directory],
          { cwd: build.directory, encoding: 'utf8' },
        );
        const key = `${scenario}\t${build.label}`;
        results.set(key, [...(results.get(key) ?? []), JSON.parse(line)]);
      }
    }
  }
} finally {
  rmSync(keep, { recursive: true, force: true });
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];
const rows = [];
for (const scenario of scenarios) {
  for (const build of builds) {
    const runs = results.get(`${scenario}\t${build.label}`);
    rows.push({
      scenario,
      build: build.label === 'this' ? 'this' : build.directory,
      'µs/node': median(runs.map((run) => run.usPerNode)),
      'user µs': median(runs.map((run) => run.cpuUserUsPerNode)),
      'sys µs': median(runs.map((run) => run.cpuSysUsPerNode)),
      'first 100': median(runs.map((run) => run.medianUsFirst100)),
      'last 100': median(runs.map((run) => run.medianUsLast100)),
      'checkpoint B': median(runs.map((run) => run.checkpointBytes)),
      rounds: runs.map((run) => run.usPerNode).join(' '),
      load: median(runs.map((run) => run.load1)),
    });
  }
}
console.table(rows);
// The machine's load moves both builds of a round together: the median of the per-round ratios is steadier than the
// ratio of the medians.
for (const scenario of scenarios) {
  const [other, self] = builds.map((build) => results.get(`${scenario}\t${build.label}`));
  const ratios = self.map((run, round) => run.usPerNode / other[round].usPerNode);
  const change = Math.round((median(ratios) - 1) * 100);
  console.log(
    `${scenario}: this build against the other, median of the per-round ratios: ${change >= 0 ? '+' : ''}${change}%`,
  );
}
