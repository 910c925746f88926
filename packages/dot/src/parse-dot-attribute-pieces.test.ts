/**
 * Long attribute blocks are matched in pieces (split-attribute-blocks.ts, issue 34 §14): the AST and the syntax
 * errors are those of a whole-text match, wherever a piece ends.
 */
import { describe, expect, it } from 'vitest';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot, parseDotWithAttributePieces, parseDotWithoutChunks } from './parse-dot.js';

/** Every kind of item the grammar has, with each separator, comments and line breaks between them. */
const ITEMS = [
  'k0=1',
  'k1 = -2,',
  'timeout=900s;',
  'ratio=1.5',
  'neg=-.5',
  'flag=true',
  'off=false,',
  'model=openai:gpt-5.1',
  'path=a/b'.replace('/', '.'),
  'human.default_choice=approve',
  '"quoted key"="value with spaces"',
  'prompt="line 1\\nline \\"2\\"\nline 3"',
  'joined="a" + "b" +\n  "c"',
  'label="x" /* a comment ] with a bracket */',
  '// a line comment\n  next=1',
  'empty=""',
  'id=n_1',
];

function items(count: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    ITEMS[index % ITEMS.length]!.replaceAll('k0', `k${index}`),
  );
}

function pipeline(attributes: string): string {
  return `digraph Pieces {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  start -> done [${attributes}] [after=1]\n  node [${attributes}]\n  x [a=1]\n}\n`;
}

function errorOf(parse: () => unknown): { message: string; location: unknown } {
  try {
    parse();
  } catch (error) {
    if (!DotSyntaxError.isInstance(error)) throw error;
    return { message: error.message, location: error.location };
  }
  throw new Error('expected a syntax error');
}

describe('long attribute blocks matched in pieces (issue 34 §14)', () => {
  it('gives the AST of a whole-text match, for every piece length', () => {
    const source = pipeline(items(120).join(' '));
    const whole = parseDotWithoutChunks(source, { filename: 'p.dot' });
    for (const pieceLength of [1, 7, 30, 200]) {
      expect(
        parseDotWithAttributePieces(source, { filename: 'p.dot', minBlockLength: 10, pieceLength }),
      ).toEqual(whole);
    }
    expect(parseDot(source, { filename: 'p.dot' })).toEqual(whole);
  });

  it('reports a syntax error anywhere in a long block as a whole-text match does', () => {
    const written = items(60);
    const mistakes = [
      'k=',
      '= 1',
      'a b=1',
      'x=1 ,, y=2',
      'x="a" + b',
      'x=1.2.3',
      'x=5min',
      'x=a->b',
      'x={',
      '[x=1',
    ];
    for (const mistake of mistakes) {
      for (const at of [0, 1, 30, written.length - 1, written.length]) {
        const attributes = [...written.slice(0, at), mistake, ...written.slice(at)].join(' ');
        const source = pipeline(attributes);
        const expected = errorOf(() => parseDotWithoutChunks(source, { filename: 'p.dot' }));
        for (const pieceLength of [1, 25]) {
          expect(
            errorOf(() =>
              parseDotWithAttributePieces(source, { filename: 'p.dot', minBlockLength: 10, pieceLength }),
            ),
            `${mistake} at ${at}, pieces of ${pieceLength}`,
          ).toEqual(expected);
        }
      }
    }
  });

  it('parses a block of 20,000 attributes with the place of each', () => {
    const attributes = Array.from({ length: 20_000 }, (_, index) => `k${index}="v${index}"`).join(',\n    ');
    const ast = parseDot(`digraph Wide {\n  a -> b [\n    ${attributes}\n  ]\n}\n`);
    const edge = ast.statements[0]!;
    if (edge.kind !== 'edgeChain') throw new Error('expected an edge chain');
    expect(edge.attributes).toHaveLength(20_000);
    const last = edge.attributes.at(-1)!;
    expect(last.key).toBe('k19999');
    expect(last.value.value).toBe('v19999');
    expect(last.keySpan.start).toMatchObject({ line: 20_002, column: 5 });
    expect(edge.span.end).toMatchObject({ line: 20_003, column: 4 });
  });
});
