import { parseDot } from '@attractor/dot';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../build-graph.js';
import { ValidationError } from '../errors/validation-error.js';
import { BUILT_IN_RULES } from './built-in-rules.js';
import type { LintRule } from './diagnostic.js';
import { validate, validateOrThrow } from './validate.js';

const clean = buildGraph(
  parseDot(
    'digraph G { goal="g"; start [shape=Mdiamond]; exit [shape=Msquare]; w [prompt="$goal"]; start -> w -> exit }',
  ),
);
const broken = buildGraph(parseDot('digraph G { w [prompt="x"] }'));

describe('validate (spec §7.3, §7.4)', () => {
  it('has stable, unique snake_case rule ids, more than 37 of them', () => {
    const names = BUILT_IN_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((name) => /^[a-z]+(_[a-z]+)*$/.test(name))).toBe(true);
    expect(names.length).toBeGreaterThan(37);
    expect(names.slice(0, 13)).toEqual([
      'start_node',
      'terminal_node',
      'reachability',
      'edge_target_exists',
      'start_no_incoming',
      'exit_no_outgoing',
      'condition_syntax',
      'stylesheet_syntax',
      'type_known',
      'fidelity_valid',
      'retry_target_exists',
      'goal_gate_has_retry',
      'prompt_on_llm_nodes',
    ]);
  });

  it('returns nothing for a clean graph', () => {
    expect(validate(clean)).toEqual([]);
  });

  it('runs custom rules after the built-ins and passes them the context', () => {
    const seen: boolean[] = [];
    const custom: LintRule = {
      name: 'no_single_letter_ids',
      apply(graph, context) {
        seen.push(context.strict);
        return [...graph.nodes.keys()]
          .filter((id) => id.length === 1)
          .map((id) => ({
            rule: 'no_single_letter_ids',
            severity: 'info' as const,
            message: `short id ${id}`,
            nodeId: id,
          }));
      },
    };
    expect(validate(clean, { rules: [custom], strict: true })).toEqual([
      { rule: 'no_single_letter_ids', severity: 'info', message: 'short id w', nodeId: 'w' },
    ]);
    expect(seen).toEqual([true]);
  });

  it('turns a rule that throws into a lint_rule_failed error', () => {
    const faulty: LintRule = {
      name: 'faulty',
      apply() {
        throw new Error('boom');
      },
    };
    expect(validate(clean, { rules: [faulty] })).toEqual([
      {
        rule: 'lint_rule_failed',
        severity: 'error',
        message: 'Lint rule "faulty" failed: boom',
        fix: 'Fix or remove the lint rule "faulty".',
      },
    ]);
  });
});

describe('validateOrThrow (spec §7.3)', () => {
  it('returns warnings when there is no error', () => {
    expect(validateOrThrow(clean)).toEqual([]);
  });

  it('throws a ValidationError carrying every diagnostic', () => {
    let caught: unknown;
    try {
      validateOrThrow(broken);
    } catch (error) {
      caught = error;
    }
    expect(ValidationError.isInstance(caught)).toBe(true);
    const error = caught as ValidationError;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.diagnostics.map((d) => d.rule)).toEqual(['start_node', 'terminal_node', 'dead_end']);
    expect(error.message).toBe(
      'Pipeline validation failed with 2 errors:\n  1:9: [start_node] Graph "G" has no start node.\n  1:9: [terminal_node] Graph "G" has no exit node.',
    );
    expect(ValidationError.isInstance(new Error('x'))).toBe(false);
  });
});
