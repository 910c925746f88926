import { parseDot as parseDotExport } from '@attractor/dot';
import { test } from 'vitest';
import { buildGraph as buildGraphExport } from '../src/build-graph.js';
import type { Graph } from '../src/graph.js';
import { validate as validateExport } from '../src/lint/validate.js';
import { BUILT_IN_TRANSFORMS, prepareGraph as prepareGraphExport } from '../src/prepare-graph.js';

// A benchmark takes as long as its samples take: minutes on a loaded 2-core machine, not vitest's default limit.
const BENCH_TIMEOUT_MS = 900_000;

// Bound once: vitest 5 runs benchmarks through its module runner, whose export getters would be timed too.
const parseDot = parseDotExport;
const buildGraph = buildGraphExport;
const validate = validateExport;
const prepareGraph = prepareGraphExport;

/**
 * A pipeline of `stages` stages: a chain with a fail loop per stage, a goal gate every 10 stages, a stylesheet
 * and a cluster.
 */
function syntheticPipeline(stages: number): string {
  const lines = [
    'digraph Bench {',
    '  graph [goal="Benchmark", model_stylesheet="* { llm_model: a; } .code { llm_model: b; } #s7 { llm_model: c; }"]',
    '  node [shape=box, timeout="15m"]',
    '  start [shape=Mdiamond]',
    '  exit [shape=Msquare]',
    '  subgraph cluster_work {',
    '    label="Work Loop"',
  ];
  for (let index = 0; index < stages; index += 1) {
    lines.push(
      `    s${index} [prompt="Stage ${index} of $goal", class="code", goal_gate=${index % 10 === 0}, retry_target=s0]`,
    );
  }
  lines.push('  }');
  lines.push(
    `  start -> ${Array.from({ length: stages }, (_, index) => `s${index}`).join(' -> ')} [condition="outcome=success"]`,
  );
  for (let index = 1; index < stages; index += 1)
    lines.push(`  s${index} -> s${index - 1} [condition="outcome=fail"]`);
  lines.push(`  s${stages - 1} -> exit`);
  lines.push('}');
  return lines.join('\n');
}

const source = syntheticPipeline(300);
const graph = buildGraph(parseDot(source), { source });

test('a 300-stage pipeline (~610 lines, 600 edges)', { timeout: BENCH_TIMEOUT_MS }, async ({ bench }) => {
  await bench.compare(
    bench('prepareGraph (parse, build, transforms, 54 rules)', () => {
      prepareGraph(source);
    }),
    bench('parseDot + buildGraph', () => {
      buildGraph(parseDot(source), { source });
    }),
    bench('validate (54 rules)', () => {
      validate(graph);
    }),
  );
});

// 10,000 stages (1,000 goal gates, 20,000 edges, ~0.9 MB): the graph layer without the parse, which is
// @attractor/dot's (parsed once here). Linear rules keep validate near 40x the 300-stage figure.
const largeSource = syntheticPipeline(10_000);
const largeAst = parseDot(largeSource);
function buildLarge(): Graph {
  let built = buildGraph(largeAst, { source: largeSource });
  for (const transform of BUILT_IN_TRANSFORMS) built = transform.apply(built);
  return built;
}
const largeGraph = buildLarge();

test('a 10,000-stage pipeline (graph layer only, parsed once)', { timeout: BENCH_TIMEOUT_MS }, async ({
  bench,
}) => {
  await bench.compare(
    bench('buildGraph + transforms', () => {
      buildLarge();
    }),
    bench('validate (54 rules)', () => {
      validate(largeGraph);
    }),
    { iterations: 5, time: 0 },
  );
});
