import { test } from 'vitest';
import { evaluateCondition as evaluateConditionExport } from '../src/evaluate-condition.js';
import { parseCondition as parseConditionExport } from '../src/parse-condition.js';

// A benchmark takes as long as its samples take: minutes on a loaded 2-core machine, not vitest's default limit.
const BENCH_TIMEOUT_MS = 900_000;

// Bound once: vitest 5 runs benchmarks through its module runner, whose export getters would be timed too.
const parseCondition = parseConditionExport;
const evaluateCondition = evaluateConditionExport;

const text = 'outcome=fail && context.failure_class!=transient_infra && context.tool_stdout!=all_complete';
const ast = parseCondition(text);
const input = {
  outcome: 'fail',
  context: new Map<string, unknown>([
    ['failure_class', 'deterministic'],
    ['tool_stdout', 'next_task-3'],
  ]),
};

test('conditions of three clauses', { timeout: BENCH_TIMEOUT_MS }, async ({ bench }) => {
  await bench.compare(
    bench('parseCondition (no cache)', () => {
      parseCondition(text);
    }),
    bench('evaluateCondition on the text (cached parse)', () => {
      evaluateCondition(text, input);
    }),
    bench('evaluateCondition on the AST', () => {
      evaluateCondition(ast, input);
    }),
  );
});
