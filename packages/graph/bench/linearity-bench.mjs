// Parse and lint grow linearly in every dimension of a pipeline, error paths included (issue 34 §14).
//
// Each dimension (value length, attribute count, nesting depth, stylesheet size, ...) is grown in 10× steps; each case
// runs `prepareGraph` (what `attractor validate` and the server do) in a fresh Node process, which reports its CPU
// time and the growth of its peak resident memory. The table gives both per unit and the factor from one step to the
// next: ~10 (or less: fixed costs) for linear work, ~100 for quadratic.
//
// Run: `pnpm --filter @attractor/graph bench` (after `pnpm build`), or `node bench/linearity-bench.mjs [dimension…]`.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Each dimension: its unit, the sizes tried, and the pipeline of a given size. */
const DIMENSIONS = {
  'value length': {
    unit: 'character',
    sizes: [10_000, 100_000, 1_000_000],
    source: (n) => graph(`  work [prompt="${'a'.repeat(n)}"]\n  start -> work -> done`),
  },
  'value length, then a syntax error': {
    unit: 'character',
    sizes: [10_000, 100_000, 1_000_000],
    source: (n) => graph(`  work [prompt="${'a'.repeat(n)}" !]\n  start -> work -> done`),
  },
  'attributes in one list': {
    unit: 'attribute',
    sizes: [1_000, 10_000, 100_000],
    source: (n) => graph(`  start -> done [${attributes(n, ' ')}]`),
  },
  'attributes in one list, then a syntax error': {
    unit: 'attribute',
    sizes: [1_000, 10_000, 100_000],
    source: (n) => graph(`  start -> done [${attributes(n, ' ')} = ]`),
  },
  'attribute statements': {
    unit: 'attribute',
    sizes: [1_000, 10_000, 100_000],
    source: (n) => graph(`  start -> done\n  ${attributes(n, ';\n  ')}`),
  },
  'subgraph nesting': {
    unit: 'level',
    sizes: [100, 1_000, 10_000],
    source: (n) => graph(`  start -> done\n  ${'subgraph s { x=1\n'.repeat(n)}${'}\n'.repeat(n)}`),
  },
  'stylesheet rules': {
    unit: 'rule',
    sizes: [100, 1_000, 10_000],
    source: (n) => stylesheet(Array.from({ length: n }, (_, i) => `#n${i} { llm_model: m${i}; }`).join('\n')),
  },
  'stylesheet value, then a syntax error': {
    unit: 'character',
    sizes: [1_000, 10_000, 100_000],
    source: (n) => stylesheet(`* { llm_model: ${'a'.repeat(n)} ; } !!`),
  },
  'chain of stages': {
    unit: 'stage',
    sizes: [100, 1_000, 10_000],
    source: (n) =>
      graph(
        `${Array.from({ length: n }, (_, i) => `  s${i} [prompt="Stage ${i}"]`).join('\n')}\n  start -> ${Array.from({ length: n }, (_, i) => `s${i}`).join(' -> ')} -> done`,
      ),
  },
  'condition clauses': {
    unit: 'clause',
    sizes: [100, 1_000, 10_000],
    source: (n) =>
      graph(
        `  start -> done [condition="${Array.from({ length: n }, (_, i) => `context.k${i}=v`).join(' && ')}"]\n  start -> done`,
      ),
  },
};

function graph(body) {
  return `digraph Bench {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${body}\n}\n`;
}

function attributes(n, separator) {
  return Array.from({ length: n }, (_, i) => `k${i}=${i}`).join(separator);
}

function stylesheet(text) {
  return graph(`  model_stylesheet="${text}"\n  start -> done`);
}

if (process.argv[2] === '--case') {
  // The child: build the source, then time prepareGraph alone.
  const { prepareGraph } = await import('@attractor/graph');
  const [, , , name, size] = process.argv;
  const source = DIMENSIONS[name].source(Number(size));
  globalThis.gc?.();
  const rss = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const { diagnostics } = prepareGraph(source, { filename: 'bench.dot' });
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `${JSON.stringify({
      cpuMs: (used.user + used.system) / 1000,
      peakGrowthMb: (process.resourceUsage().maxRSS * 1024 - rss) / 1024 / 1024,
      diagnostics: diagnostics.length,
      sourceBytes: source.length,
    })}\n`,
  );
  process.exit(0);
}

const chosen = process.argv.slice(2);
/** A case that takes longer is stopped (and the dimension's larger sizes skipped): BENCH_CASE_SECONDS, default 120. */
const CASE_TIMEOUT_MS = Number(process.env.BENCH_CASE_SECONDS ?? '120') * 1000;
const self = fileURLToPath(import.meta.url);
const rows = [
  ['dimension', 'size', 'CPU', 'per unit', '× previous', 'peak memory growth', 'per unit (slope)'],
];
for (const [name, dimension] of Object.entries(DIMENSIONS)) {
  if (chosen.length > 0 && !chosen.some((word) => name.includes(word))) continue;
  let previous;
  for (const size of dimension.sizes) {
    let output;
    try {
      output = execFileSync(process.execPath, ['--expose-gc', self, '--case', name, String(size)], {
        encoding: 'utf8',
        maxBuffer: 1024 * 1024,
        timeout: CASE_TIMEOUT_MS,
      });
    } catch (error) {
      if (error.signal !== 'SIGTERM') throw error;
      // Past the limit: the larger sizes would take longer still.
      rows.push([
        name,
        `${size.toLocaleString('en')} ${dimension.unit}s`,
        `> ${CASE_TIMEOUT_MS / 1000} s`,
        '',
        '',
        '',
        '',
      ]);
      break;
    }
    const result = JSON.parse(output);
    const ratio = previous === undefined ? '' : `${(result.cpuMs / previous.cpuMs).toFixed(1)}×`;
    const slope =
      previous === undefined
        ? ''
        : `${(((result.peakGrowthMb - previous.peakGrowthMb) * 1024) / (size - previous.size)).toFixed(2)} KB`;
    rows.push([
      name,
      `${size.toLocaleString('en')} ${dimension.unit}s`,
      `${result.cpuMs.toFixed(0)} ms`,
      `${((result.cpuMs * 1000) / size).toFixed(1)} µs`,
      ratio,
      `${result.peakGrowthMb.toFixed(0)} MB`,
      slope,
    ]);
    previous = { ...result, size };
  }
}
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
for (const [index, row] of rows.entries()) {
  process.stdout.write(`| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |\n`);
  if (index === 0) process.stdout.write(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |\n`);
}
