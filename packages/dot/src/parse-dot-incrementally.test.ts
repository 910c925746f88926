import { describe, expect, it } from 'vitest';
import { readFixture } from '../test/read-fixture.js';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot, parseDotIncrementally } from './parse-dot.js';

/** A pipeline of `count` nodes (about 40 characters each), so that its body spans many chunks. */
function manyNodes(count: number, last = ''): string {
  const lines = ['digraph Many {'];
  for (let index = 0; index < count; index++) lines.push(`  stage_${index} [label="Stage ${index}"]`);
  lines.push('  subgraph cluster_x { label="X"; inner [shape=box]; { deeper } }', last, '}');
  return lines.join('\n');
}

describe('parseDotIncrementally', () => {
  it('yields the statements parseDot returns, in order, with the header known up front', () => {
    const source = manyNodes(300);
    const stream = parseDotIncrementally(source, { filename: 'many.dot' });
    const ast = parseDot(source, { filename: 'many.dot' });
    expect(stream.id).toEqual(ast.id);
    expect(JSON.stringify(stream.span)).toBe(JSON.stringify(ast.span));
    expect(stream.filename).toBe('many.dot');
    const statements = [...stream.statements];
    expect(statements).toHaveLength(301);
    expect(statements).toEqual(ast.statements);
    expect(JSON.stringify(statements)).toBe(JSON.stringify(ast.statements));
    // The subgraph comes whole, nested block included.
    const subgraph = statements.at(-1)!;
    expect(subgraph.kind === 'subgraph' && subgraph.statements.map((statement) => statement.kind)).toEqual([
      'attributeDeclaration',
      'node',
      'subgraph',
    ]);
  });

  it('parses a statement only when the iteration reaches it', () => {
    const source = manyNodes(300, '  broken [label=]');
    const stream = parseDotIncrementally(source);
    const seen: string[] = [];
    let thrown: unknown;
    try {
      for (const statement of stream.statements) if (statement.kind === 'node') seen.push(statement.id.name);
    } catch (error) {
      thrown = error;
    }
    // The statements of the chunks before the error came out first, then the same error parseDot throws.
    expect(seen.length).toBeGreaterThan(200);
    expect(seen.slice(0, 2)).toEqual(['stage_0', 'stage_1']);
    expect(DotSyntaxError.isInstance(thrown)).toBe(true);
    expect(() => parseDot(source)).toThrow((thrown as DotSyntaxError).message);
  });

  it('throws at once what the scanner or the header finds', () => {
    expect(() => parseDotIncrementally('digraph G { a [label="open }')).toThrow(DotSyntaxError);
    expect(() => parseDotIncrementally('graph G { a }')).toThrow('Undirected graphs are not supported');
  });

  it('streams the spec examples to the same AST', () => {
    const source = readFixture('spec-simple.dot');
    expect([...parseDotIncrementally(source).statements]).toEqual(parseDot(source).statements);
  });
});
