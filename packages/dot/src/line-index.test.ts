import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import type { SourcePosition, SourceSpan } from './dot-ast.js';
import { spanBetween } from './line-index.js';
import { parseDot } from './parse-dot.js';

const corpusDir = corpusDotDirectory('the corpus span test of @attractor/dot');

/** Line and column of `offset` counted the slow way, independently of the line index. */
function naivePosition(source: string, offset: number): SourcePosition {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  return { offset, line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/** Every `{ start, end }` object in plain (JSON) data. */
function plainSpans(value: unknown, found: SourceSpan[] = []): SourceSpan[] {
  if (Array.isArray(value)) for (const item of value) plainSpans(item, found);
  else if (typeof value === 'object' && value !== null) {
    if ('start' in value && 'end' in value) found.push(value as SourceSpan);
    for (const item of Object.values(value)) plainSpans(item, found);
  }
  return found;
}

describe('AST spans (positions worked out on read)', () => {
  const source = 'digraph G {\r\n  plan [label="Plan"]\n\n  plan -> done\n}\n';

  it('reads start, end and filename like a plain span', () => {
    const ast = parseDot(source, { filename: 'g.dot' });
    const edge = ast.statements[1]!;
    expect(edge.span.start).toEqual({ offset: 38, line: 4, column: 3 });
    expect(edge.span.end).toEqual({ offset: 50, line: 4, column: 15 });
    expect(edge.span.filename).toBe('g.dot');
    expect('start' in edge.span).toBe(true);
    expect(parseDot(source).statements[1]!.span.filename).toBeUndefined();
  });

  it('serializes to exactly the plain span, without filename when there is none', () => {
    const withFile = parseDot(source, { filename: 'g.dot' });
    expect(JSON.parse(JSON.stringify(withFile.id.span))).toEqual({
      start: { offset: 8, line: 1, column: 9 },
      end: { offset: 9, line: 1, column: 10 },
      filename: 'g.dot',
    });
    expect(JSON.stringify(parseDot(source).id.span)).toBe(
      '{"start":{"offset":8,"line":1,"column":9},"end":{"offset":9,"line":1,"column":10}}',
    );
  });

  it('compares by place under toEqual: two different spans are not equal', () => {
    const [node, edge] = parseDot(source).statements;
    expect(node!.span).not.toEqual(edge!.span);
    expect(parseDot(source).statements[0]!.span).toEqual(node!.span);
  });

  it('joins two spans with spanBetween, of the same kind when both come from one parse', () => {
    const ast = parseDot(source, { filename: 'g.dot' });
    const edge = ast.statements[1]!;
    if (edge.kind !== 'edgeChain') throw new Error('expected an edge chain');
    const [from, to] = edge.nodes;
    const joined = spanBetween(from!.span, to!.span);
    expect(JSON.parse(JSON.stringify(joined))).toEqual({
      start: { offset: 38, line: 4, column: 3 },
      end: { offset: 50, line: 4, column: 15 },
      filename: 'g.dot',
    });
    expect(joined).toEqual(edge.span);
    const plain = { start: { offset: 0, line: 1, column: 1 }, end: { offset: 1, line: 1, column: 2 } };
    expect(spanBetween(plain, to!.span)).toEqual({ start: plain.start, end: to!.span.end });
    expect(spanBetween(from!.span, plain)).toEqual({
      start: from!.span.start,
      end: plain.end,
      filename: 'g.dot',
    });
  });

  it.skipIf(corpusDir === undefined)(
    'gives the line and column of every span of every corpus file as counted by hand',
    () => {
      for (const name of readdirSync(corpusDir!).filter((file) => file.endsWith('.dot'))) {
        const text = readFileSync(path.join(corpusDir!, name), 'utf8');
        const spans = plainSpans(JSON.parse(JSON.stringify(parseDot(text, { filename: name }))));
        expect(spans.length).toBeGreaterThan(10);
        for (const span of spans) {
          expect(span.start).toEqual(naivePosition(text, span.start.offset));
          expect(span.end).toEqual(naivePosition(text, span.end.offset));
          expect(span.filename).toBe(name);
        }
      }
    },
  );
});
