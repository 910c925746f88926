import { describe, expect, it } from 'vitest';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot } from './parse-dot.js';

describe('parseDot on deep nesting (issue 20 §3)', () => {
  it('parses 10,000 nested named subgraphs, each a statement of its own', { timeout: 120_000 }, () => {
    const depth = 10_000;
    let source = 'digraph G {\n';
    for (let index = 0; index < depth; index++) source += `subgraph s${index} { n${index}\n`;
    source += `${'}\n'.repeat(depth)}}\n`;
    expect(parseDot(source).statements).toHaveLength(1);
  });

  it('reports braces nested too deeply inside one statement as a syntax error at the first brace, not a stack overflow', () => {
    const source = `digraph G {\n  a -> b\n${'{ '.repeat(20_000)}x${' }'.repeat(20_000)}\n}\n`;
    let error: unknown;
    try {
      parseDot(source, { filename: 'deep.dot' });
    } catch (caught) {
      error = caught;
    }
    expect(DotSyntaxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      shortMessage: 'The braces here nest too deeply inside one statement to parse',
      location: { line: 3, column: 1 },
    });
  });
});
