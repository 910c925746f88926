import { parseDot } from '@attractor/dot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ATTRIBUTE_DEFINITIONS,
  type CodingToolName,
  edgeAttribute,
  graphAttribute,
  type JoinPolicy,
  nodeAttribute,
  parseAttributeValue,
} from './attribute-schema.js';
import { buildGraph } from './build-graph.js';

function node(attributes: string) {
  const graph = buildGraph(parseDot(`digraph G { n [${attributes}] }`));
  return graph.node('n')!;
}

describe('parseAttributeValue (spec §2.4, Appendix A)', () => {
  it.each([
    ['250ms', 250],
    ['900s', 900_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['300', 300_000],
  ])('reads the duration %s as %d ms', (text, milliseconds) => {
    expect(parseAttributeValue('timeout', text)).toEqual({ ok: true, value: milliseconds });
  });

  it.each(['1.5h', '15 minutes', '-5s', ''])('rejects the duration %j', (text) => {
    expect(parseAttributeValue('timeout', text)).toEqual({
      ok: false,
      expected: 'a duration such as 250ms, 900s, 15m, 2h or 1d',
    });
  });

  it('reads booleans true|false only', () => {
    expect(parseAttributeValue('goal_gate', 'true')).toEqual({ ok: true, value: true });
    expect(parseAttributeValue('goal_gate', 'false')).toEqual({ ok: true, value: false });
    expect(parseAttributeValue('goal_gate', 'yes').ok).toBe(false);
  });

  it('reads integers with their bounds', () => {
    expect(parseAttributeValue('weight', '-3')).toEqual({ ok: true, value: -3 });
    expect(parseAttributeValue('max_retries', '-1').ok).toBe(false);
    expect(parseAttributeValue('max_parallel', '0').ok).toBe(false);
    expect(parseAttributeValue('max_parallel', '4')).toEqual({ ok: true, value: 4 });
    expect(parseAttributeValue('max_retries', '2.5').ok).toBe(false);
  });

  it('reads enumerations', () => {
    expect(parseAttributeValue('join_policy', 'k_of_n')).toEqual({ ok: true, value: 'k_of_n' });
    expect(parseAttributeValue('join_policy', 'all').ok).toBe(false);
    expect(parseAttributeValue('reasoning_effort', 'medium')).toEqual({ ok: true, value: 'medium' });
    expect(parseAttributeValue('fidelity', 'summary:high')).toEqual({ ok: true, value: 'summary:high' });
    expect(parseAttributeValue('manager.actions', 'observe, steer')).toEqual({
      ok: true,
      value: ['observe', 'steer'],
    });
  });

  it('reads the tools list: none, all, or named coding tools', () => {
    expect(parseAttributeValue('tools', 'none')).toEqual({ ok: true, value: [] });
    expect(parseAttributeValue('tools', 'read_file, grep')).toEqual({
      ok: true,
      value: ['read_file', 'grep'],
    });
    expect(parseAttributeValue('tools', 'all')).toEqual({
      ok: true,
      value: ['read_file', 'write_file', 'edit_file', 'shell', 'grep', 'glob'],
    });
    expect(parseAttributeValue('tools', 'read_file,browser').ok).toBe(false);
  });
});

describe('nodeAttribute / edgeAttribute / graphAttribute', () => {
  it('returns typed handler values', () => {
    const parallel = node(
      'max_parallel=3, join_policy=first_success, branch_timeout="10m", "manager.poll_interval"="45s", tools="none"',
    );
    expect(nodeAttribute(parallel, 'max_parallel')).toBe(3);
    expect(nodeAttribute(parallel, 'join_policy')).toBe('first_success');
    expect(nodeAttribute(parallel, 'branch_timeout')).toBe(600_000);
    expect(nodeAttribute(parallel, 'manager.poll_interval')).toBe(45_000);
    expect(nodeAttribute(parallel, 'tools')).toEqual([]);
    expectTypeOf(nodeAttribute(parallel, 'max_parallel')).toEqualTypeOf<number | undefined>();
    expectTypeOf(nodeAttribute(parallel, 'join_policy')).toEqualTypeOf<JoinPolicy | undefined>();
    expectTypeOf(nodeAttribute(parallel, 'stack.child_autostart')).toEqualTypeOf<boolean | undefined>();
    expectTypeOf(nodeAttribute(parallel, 'tools')).toEqualTypeOf<CodingToolName[] | undefined>();
  });

  it('returns undefined for absent and malformed values', () => {
    const broken = node('max_parallel=lots');
    expect(nodeAttribute(broken, 'max_parallel')).toBeUndefined();
    expect(nodeAttribute(broken, 'join_policy')).toBeUndefined();
  });

  it('reads edge and graph values', () => {
    const graph = buildGraph(parseDot('digraph G { max_node_visits=7; a -> b [loop_restart=true] }'));
    expect(edgeAttribute(graph.edges[0]!, 'loop_restart')).toBe(true);
    expect(graphAttribute(graph, 'max_node_visits')).toBe(7);
    expect(graphAttribute(graph, 'max_gate_retries')).toBeUndefined();
  });

  it('covers every key of spec Appendix A', () => {
    const appendixA = [
      'goal',
      'label',
      'model_stylesheet',
      'default_max_retries',
      'default_fidelity',
      'retry_target',
      'fallback_retry_target',
      'stack.child_dotfile',
      'stack.child_workdir',
      'tool_hooks.pre',
      'tool_hooks.post',
      'shape',
      'type',
      'prompt',
      'max_retries',
      'goal_gate',
      'fidelity',
      'thread_id',
      'class',
      'timeout',
      'llm_model',
      'llm_provider',
      'reasoning_effort',
      'auto_status',
      'allow_partial',
      'condition',
      'weight',
      'loop_restart',
    ];
    expect(appendixA.filter((key) => !(key in ATTRIBUTE_DEFINITIONS))).toEqual([]);
  });
});
