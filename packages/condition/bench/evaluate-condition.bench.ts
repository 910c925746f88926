import { bench, describe } from 'vitest';
import { evaluateCondition } from '../src/evaluate-condition.js';
import { parseCondition } from '../src/parse-condition.js';

const text = 'outcome=fail && context.failure_class!=transient_infra && context.tool_stdout!=all_complete';
const ast = parseCondition(text);
const input = {
  outcome: 'fail',
  context: new Map<string, unknown>([
    ['failure_class', 'deterministic'],
    ['tool_stdout', 'next_task-3'],
  ]),
};

describe('conditions of three clauses', () => {
  bench('parseCondition (no cache)', () => {
    parseCondition(text);
  });
  bench('evaluateCondition on the text (cached parse)', () => {
    evaluateCondition(text, input);
  });
  bench('evaluateCondition on the AST', () => {
    evaluateCondition(ast, input);
  });
});
