/** Spec §11.2 Validation and Linting: one test per checkbox, through prepareGraph / validate / validateOrThrow. */

import { parseDot } from '@attractor/dot';
import { buildGraph, prepareGraph, ValidationError, validate, validateOrThrow } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { lint } from './support/lint.js';
import { graphFrom } from './support/run-dot.js';

describe('§11.2 Validation and Linting', () => {
  it('Exactly one start node (shape=Mdiamond or id matching `start`/`Start`) is required', () => {
    const body = 'exit [shape=Msquare]; a [prompt="a"]; a -> exit';
    expect(lint(`digraph G { ${body} }`, 'start_node')).toEqual(['error start_node (graph)']);
    expect(lint(`digraph G { begin [shape=Mdiamond]; begin -> a; ${body} }`, 'start_node')).toEqual([]);
    expect(lint(`digraph G { start; start -> a; ${body} }`, 'start_node')).toEqual([]);
    expect(lint(`digraph G { Start; Start -> a; ${body} }`, 'start_node')).toEqual([]);
    const two = lint(
      `digraph G { s1 [shape=Mdiamond]; s2 [shape=Mdiamond]; s1 -> a; s2 -> a; ${body} }`,
      'start_node',
    );
    expect(two.length).toBeGreaterThanOrEqual(1);
    expect(two.every((line) => line.startsWith('error start_node'))).toBe(true);
  });

  it('Exactly one exit node (shape=Msquare or id matching `exit`/`end`) is required [a second exit node is a dialect_alias warning, an error with --strict: Kilroy pipelines have several]', () => {
    const body = 'start [shape=Mdiamond]; a [prompt="a"]; start -> a';
    expect(lint(`digraph G { ${body} }`, 'terminal_node')).toEqual(['error terminal_node (graph)']);
    expect(lint(`digraph G { ${body}; done [shape=Msquare]; a -> done }`, 'terminal_node')).toEqual([]);
    expect(lint(`digraph G { ${body}; exit; a -> exit }`, 'terminal_node')).toEqual([]);
    expect(lint(`digraph G { ${body}; end; a -> end }`, 'terminal_node')).toEqual([]);
    const two = `digraph G { ${body}; x1 [shape=Msquare]; x2 [shape=Msquare]; a -> x1; a -> x2 }`;
    expect(lint(two, 'terminal_node', 'dialect_alias')).toEqual(['warning dialect_alias x2']);
    const strict = prepareGraph(two, { filename: 'lint.dot', strict: true }).diagnostics.filter(
      (diagnostic) => diagnostic.rule === 'dialect_alias',
    );
    expect(strict.map((diagnostic) => diagnostic.severity)).toEqual(['error']);
  });

  it('Start node has no incoming edges', () => {
    const source = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]
      start -> a -> exit
      a -> start [condition="outcome=fail"]
    }`;
    expect(lint(source, 'start_no_incoming')).toEqual(['error start_no_incoming a->start']);
  });

  it('Exit node has no outgoing edges', () => {
    const source = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]
      start -> a -> exit
      exit -> a
    }`;
    expect(lint(source, 'exit_no_outgoing')).toEqual(['error exit_no_outgoing exit->a']);
  });

  it('All nodes are reachable from start (no orphans) [docs/architecture.md "Reachability": an orphan is an ERROR, as in §7.2]', () => {
    const source = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]; orphan [prompt="o"]
      start -> a -> exit
      orphan -> exit
    }`;
    expect(lint(source, 'reachability')).toEqual(['error reachability orphan']);
  });

  it('All edges reference valid node IDs', () => {
    // A graph built in code (or by a transform) can hold an edge to a node that does not exist: an error.
    const base = graphFrom(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; review [prompt="r"]
      start -> review -> exit
    }`);
    const broken = base.with({ edges: [...base.edges, { ...base.edges[1]!, to: 'exti', index: 2 }] });
    const errors = validate(broken).filter((diagnostic) => diagnostic.rule === 'edge_target_exists');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ severity: 'error', edge: { from: 'review', to: 'exti' } });
    expect(errors[0]!.message).toContain('Did you mean "exit"?');
    // In DOT an edge declares its nodes implicitly, so a typo is an undeclared node close to a declared
    // one: the same error, with the likely fix.
    const typo = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; review [prompt="r"]
      start -> review
      review -> exti [condition="outcome=fail"]
      review -> exit [condition="outcome=success"]
    }`;
    expect(lint(typo, 'edge_target_exists')).toEqual(['error edge_target_exists review->exti']);
  });

  it('Codergen nodes (shape=box) have non-empty `prompt` attribute (warning if missing)', () => {
    const source = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      with_prompt [shape=box, prompt="do it"]
      no_prompt [shape=box]
      start -> with_prompt -> no_prompt -> exit
    }`;
    expect(lint(source, 'prompt_on_llm_nodes')).toEqual(['warning prompt_on_llm_nodes no_prompt']);
  });

  it('Condition expressions on edges parse without errors', () => {
    const source = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; a [prompt="a"]
      start -> a
      a -> exit [condition="outcome=success && context.ready!=false"]
      a -> a [condition="outcome=="]
    }`;
    expect(lint(source, 'condition_syntax')).toEqual(['error condition_syntax a->a']);
  });

  it('`validate_or_raise()` throws on error-severity violations', () => {
    const bad = buildGraph(parseDot('digraph G { a [prompt="a"] }'));
    let thrown: unknown;
    try {
      validateOrThrow(bad);
    } catch (error) {
      thrown = error;
    }
    expect(ValidationError.isInstance(thrown)).toBe(true);
    const error = thrown as ValidationError;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.diagnostics.map((diagnostic) => diagnostic.rule)).toEqual(
      expect.arrayContaining(['start_node', 'terminal_node']),
    );
    // Warnings alone do not throw: a codergen node without a prompt is only a warning.
    const warningsOnly = buildGraph(
      parseDot('digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; a; start -> a -> exit }'),
    );
    expect(validateOrThrow(warningsOnly).some((diagnostic) => diagnostic.severity === 'warning')).toBe(true);
  });

  it('Lint results include rule name, severity (error/warning), node/edge ID, and message', () => {
    const source = `digraph G {
  start [shape=Mdiamond]; exit [shape=Msquare]
  a
  start -> a -> exit
  exit -> a
}`;
    const diagnostics = validate(buildGraph(parseDot(source, { filename: 'r.dot' }), { source }));
    const nodeDiagnostic = diagnostics.find((diagnostic) => diagnostic.rule === 'prompt_on_llm_nodes')!;
    expect(nodeDiagnostic).toMatchObject({ severity: 'warning', nodeId: 'a' });
    expect(nodeDiagnostic.message).toMatch(/prompt/);
    expect(nodeDiagnostic.span?.start).toMatchObject({ line: 3 });
    const edgeDiagnostic = diagnostics.find((diagnostic) => diagnostic.rule === 'exit_no_outgoing')!;
    expect(edgeDiagnostic).toMatchObject({ severity: 'error', edge: { from: 'exit', to: 'a' } });
    expect(edgeDiagnostic.message.length).toBeGreaterThan(10);
    expect(edgeDiagnostic.span?.start).toMatchObject({ line: 5 });
  });
});
