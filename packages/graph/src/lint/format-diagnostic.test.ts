import { describe, expect, it } from 'vitest';
import { prepareGraph } from '../prepare-graph.js';
import { formatDiagnostic } from './format-diagnostic.js';

describe('formatDiagnostic (spec §7.1)', () => {
  const source =
    'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  work [prompt="x", timeout="soon"]\n  start -> work -> exit\n}';

  it('renders file:line:col, severity, rule, message, the source line with carets, and the fix', () => {
    const { diagnostics } = prepareGraph(source, { filename: 'pipeline.dot' });
    const [diagnostic] = diagnostics.filter((d) => d.rule === 'attribute_type');
    expect(formatDiagnostic(diagnostic!, source)).toBe(
      [
        'pipeline.dot:4:29: error[attribute_type]: Node "work" has timeout="soon", which is not valid: expected a duration such as 250ms, 900s, 15m, 2h or 1d.',
        '> 4 |   work [prompt="x", timeout="soon"]',
        '    |                             ^^^^^^',
        '  fix: Write timeout as a duration such as 250ms, 900s, 15m, 2h or 1d.',
      ].join('\n'),
    );
  });

  it('omits the excerpt without source and the position without a span', () => {
    const { diagnostics } = prepareGraph('digraph G { a -> b }', { filename: 'g.dot' });
    const { span: _span, ...missingStart } = diagnostics.find((d) => d.rule === 'start_node')!;
    expect(formatDiagnostic(missingStart)).toBe(
      '<input>: error[start_node]: Graph "G" has no start node.\n  fix: Add `start [shape=Mdiamond]` and an edge from it to the first stage.',
    );
    expect(formatDiagnostic(missingStart, undefined, { filename: 'g.dot' }).split('\n')[0]).toBe(
      'g.dot: error[start_node]: Graph "G" has no start node.',
    );
  });

  it('formats a DOT syntax error the same way', () => {
    const bad = 'digraph G {\n  a -- b\n}';
    const { diagnostics } = prepareGraph(bad, { filename: 'bad.dot' });
    const text = formatDiagnostic(diagnostics[0]!, bad);
    expect(text.split('\n').slice(0, 3)).toEqual([
      `bad.dot:2:5: error[dot_syntax]: ${diagnostics[0]!.message}`,
      '> 2 |   a -- b',
      '    |     ^^',
    ]);
  });
});
