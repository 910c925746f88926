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

  it('collects several statements per chunk, from minChunkLength to four times it, cutting only between statements', () => {
    const statements = Array.from({ length: 200 }, (_, index) => `  node_${index} [label="${index}"]\n`);
    const source = `digraph G {\n${statements.join('')}}`;
    const scan = scanDot(createParseContext(source, undefined), { minChunkLength: 100 });
    const lengths: number[] = [];
    for (let index = 0; index < scan.segments.length; index += 3) {
      const text = source.slice(scan.segments[index + 1], scan.segments[index + 2]);
      expect(text.trim().endsWith(']')).toBe(true);
      lengths.push(text.length);
    }
    expect(lengths.length).toBeGreaterThan(10);
    const longest = Math.max(...statements.map((statement) => statement.length));
    expect(lengths.slice(0, -1).every((length) => length >= 100 && length < 400 + longest)).toBe(true);
    // Where a chunk ends depends on the statement there, not on where the chunk began.
    expect(new Set(lengths.slice(0, -1)).size).toBeGreaterThan(1);
  });

  it('cuts after the same statements before and after an edit further up (the chunks after it are unchanged)', () => {
    const statements = Array.from({ length: 300 }, (_, index) => `  node_${index} [label="${index}"]\n`);
    const cutsAfter = (source: string, from: number): string[] => {
      const scan = scanDot(createParseContext(source, undefined), { minChunkLength: 100 });
      const cuts: string[] = [];
      for (let index = 0; index < scan.segments.length; index += 3) {
        if (scan.segments[index + 2]! > from)
          cuts.push(source.slice(scan.segments[index + 2]! - 20, scan.segments[index + 2]));
      }
      return cuts;
    };
    const source = `digraph G {\n${statements.join('')}}`;
    const edited = `digraph G {\n${statements.slice(0, 40).join('')}  added [label="a longer statement"]\n${statements.slice(40).join('')}}`;
    const after = source.indexOf('node_150 ');
    const before = cutsAfter(source, after);
    expect(before.length).toBeGreaterThan(5);
    expect(cutsAfter(edited, edited.indexOf('node_150 '))).toEqual(before);
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
