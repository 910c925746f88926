import { describe, expect, it } from 'vitest';
import { createParseContext } from './parse-context.js';
import { parseDot, parseDotWithoutChunks } from './parse-dot.js';
import { SEGMENT_STATEMENTS, SEGMENT_SUBGRAPH_CLOSE, SEGMENT_SUBGRAPH_OPEN, scanDot } from './scan-dot.js';

function segmentsOf(source: string): Array<[string, string]> {
  const scan = scanDot(createParseContext(source, undefined), { minChunkLength: 0 });
  const names = {
    [SEGMENT_STATEMENTS]: 'statements',
    [SEGMENT_SUBGRAPH_OPEN]: 'open',
    [SEGMENT_SUBGRAPH_CLOSE]: 'close',
  };
  const result: Array<[string, string]> = [];
  for (let index = 0; index < scan.segments.length; index += 3) {
    const kind = scan.segments[index] as keyof typeof names;
    result.push([names[kind], source.slice(scan.segments[index + 1], scan.segments[index + 2]).trim()]);
  }
  return result;
}

describe('scanDot (issue 2, "Speed and memory")', () => {
  it('cuts the body between statements, keeping edge chains, [..][..] blocks and subgraph names whole', () => {
    expect(
      segmentsOf('digraph G {\n a [x=1] [y=2]\n b\n  -> c\n d; e -> f [z="]"]\n subgraph\n s { g }\n}'),
    ).toEqual([
      ['statements', 'a [x=1] [y=2]'],
      ['statements', 'b\n  -> c'],
      ['statements', 'd;'],
      ['statements', 'e -> f [z="]"]'],
      ['open', 'subgraph\n s {'],
      ['statements', 'g'],
      ['close', '}'],
    ]);
  });

  it('cuts the bodies of named and anonymous subgraphs that stand alone, and keeps one inside an edge whole', () => {
    expect(segmentsOf('digraph G {\n subgraph cluster_a { a\n b };\n { c }\n x -> { y }\n}')).toEqual([
      ['open', 'subgraph cluster_a {'],
      ['statements', 'a'],
      ['statements', 'b'],
      ['close', '}'],
      ['open', '{'],
      ['statements', 'c'],
      ['close', '}'],
      ['statements', 'x -> { y }'],
    ]);
  });

  it('collects several statements per chunk up to minChunkLength, cutting only between statements', () => {
    const statement = '  node_x [label="x"]\n';
    const source = `digraph G {\n${statement.repeat(200)}}`;
    const scan = scanDot(createParseContext(source, undefined), { minChunkLength: 100 });
    const lengths: number[] = [];
    for (let index = 0; index < scan.segments.length; index += 3) {
      const text = source.slice(scan.segments[index + 1], scan.segments[index + 2]);
      expect(text.trim().endsWith(']')).toBe(true);
      lengths.push(text.length);
    }
    expect(lengths.length).toBeGreaterThan(30);
    expect(lengths.slice(0, -1).every((length) => length >= 100 && length < 100 + statement.length)).toBe(
      true,
    );
  });

  it('masks comments and "#" lines with spaces, keeping offsets and newlines', () => {
    const source = '# 1 "x"\ndigraph G { // c {\n a /* } */ }';
    const scan = scanDot(createParseContext(source, undefined));
    expect(scan.masked).toHaveLength(source.length);
    expect(scan.masked).toBe(`       \ndigraph G {       \n a ${' '.repeat('/* } */'.length)} }`);
  });

  it('gives the same AST as a whole-text match for nested subgraphs, semicolons and comments', () => {
    const source = `// pipeline
digraph Nested {
  subgraph cluster_outer {
    label = "Outer"; node [shape=box]
    subgraph cluster_inner { a -> b [label="x" + "y"] };
    { rank = same; c d }
  };
  e [prompt="## not a comment
# nor this"]
}`;
    expect(parseDot(source)).toEqual(parseDotWithoutChunks(source));
  });
});
