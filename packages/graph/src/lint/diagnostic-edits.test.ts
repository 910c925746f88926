import { describe, expect, it } from 'vitest';
import { prepareGraph } from '../prepare-graph.js';
import type { Diagnostic } from './diagnostic.js';

const SOURCE = `digraph Fixable {
  default_fidelity="ful"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [llm_prompt="Plan it", timeout="300", max_retrys=2, retry_target="plna"]
  check [shape=parallelogram, script="make test", type="wait.humna"]
  start -> plan -> check
  check -> exit [condition="outcom=success"]
  check -> plan [condition="outcome=failed"]
  plan -> exti
}
`;

/** Applies the first edit set of every diagnostic (as an editor applies quick fixes one after another). */
function applyAll(source: string, diagnostics: readonly Diagnostic[]): string {
  const edits = diagnostics
    .flatMap((diagnostic) => diagnostic.edits ?? [])
    .sort((left, right) => right.span.start.offset - left.span.start.offset);
  let text = source;
  for (const edit of edits) {
    text = text.slice(0, edit.span.start.offset) + edit.text + text.slice(edit.span.end.offset);
  }
  return text;
}

describe('diagnostic edits (quick fixes)', () => {
  it('fix every mechanical problem when applied, and only those', () => {
    const before = prepareGraph(SOURCE).diagnostics;
    const fixable = before.filter((diagnostic) => diagnostic.edits !== undefined).map((d) => d.rule);
    expect(fixable.sort()).toEqual(
      [
        'condition_key',
        'dialect_alias',
        'dialect_alias',
        'dialect_alias',
        'duration_unit',
        'edge_target_exists',
        'fidelity_valid',
        'retry_target_exists',
        'type_known',
        'unknown_attribute',
      ].sort(),
    );
    const fixed = applyAll(SOURCE, before);
    expect(fixed).toBe(`digraph Fixable {
  default_fidelity="full"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [prompt="Plan it", timeout="300s", max_retries=2, retry_target="plan"]
  check [shape=parallelogram, tool_command="make test", type="wait.human"]
  start -> plan -> check
  check -> exit [condition="outcome=success"]
  check -> plan [condition="outcome=fail"]
  plan -> exit
}
`);
    const after = prepareGraph(fixed).diagnostics;
    expect(after.filter((diagnostic) => diagnostic.edits !== undefined)).toEqual([]);
  });

  it('give each edit a plain span that survives JSON and structured cloning', () => {
    const source =
      'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit [conditon="x"]\n}\n';
    const [diagnostic] = prepareGraph(source).diagnostics.filter((found) => found.edits !== undefined);
    const offset = source.indexOf('conditon');
    expect(structuredClone(diagnostic!.edits)).toEqual([
      {
        span: {
          start: { offset, line: 4, column: 18 },
          end: { offset: offset + 'conditon'.length, line: 4, column: 26 },
        },
        text: 'condition',
      },
    ]);
  });
});
