import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import { createDotParseCache } from './dot-parse-cache.js';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot } from './parse-dot.js';

const corpusDir = corpusDotDirectory('the parse cache tests of @attractor/dot on the corpus');

/** The AST as plain data: spans as their positions, so two parses compare by what they found and where. */
function plain(source: string, options: Parameters<typeof parseDot>[1] = {}): unknown {
  return JSON.parse(JSON.stringify(parseDot(source, options)));
}

/** A pipeline of `count` stages, each statement a little different, so chunks differ. */
function pipeline(count: number, extra = ''): string {
  const lines = ['digraph Big {', '  start [shape=Mdiamond]', '  exit [shape=Msquare]'];
  for (let index = 0; index < count; index++) {
    const attributes =
      index % 3 === 0 ? `, max_retries=${index % 5}` : index % 3 === 1 ? ', goal_gate=true' : '';
    lines.push(`  s${index} [label="Stage ${index}", prompt="Do ${index}"${attributes}]`);
    if (extra !== '' && index === Math.floor(count / 2)) lines.push(extra);
  }
  lines.push('  start -> s0');
  for (let index = 0; index + 1 < count; index++) lines.push(`  s${index} -> s${index + 1}`);
  lines.push(`  s${count - 1} -> exit`, '}', '');
  return lines.join('\n');
}

describe('createDotParseCache', () => {
  it('gives the same AST as a parse without it, and matches a chunk it has seen only once', () => {
    const source = pipeline(300);
    const cache = createDotParseCache();
    expect(plain(source, { filename: 'big.dot', cache })).toEqual(plain(source, { filename: 'big.dot' }));
    const first = cache.stats;
    expect(first.misses).toBeGreaterThan(5);
    expect(plain(source, { filename: 'big.dot', cache })).toEqual(plain(source, { filename: 'big.dot' }));
    expect(cache.stats.misses).toBe(first.misses);
    expect(cache.stats.hits - first.hits).toBe(first.hits + first.misses);
  });

  it('after an edit matches only the chunks around it, and reads the cached ones against the new text', () => {
    const source = pipeline(300);
    const cache = createDotParseCache();
    parseDot(source, { cache });
    const before = cache.stats;
    const edited = pipeline(300, '  inserted [label="A new stage", timeout="15m"]');
    const ast = plain(edited, { filename: 'edited.dot', cache });
    expect(ast).toEqual(plain(edited, { filename: 'edited.dot' }));
    expect(cache.stats.misses - before.misses).toBeGreaterThanOrEqual(1);
    expect(cache.stats.misses - before.misses).toBeLessThanOrEqual(3);
    // A cached chunk after the edit: its spans are those of the new text (one line further down).
    const statements = (ast as { statements: { kind: string; id?: { name: string }; span: unknown }[] })
      .statements;
    const last = statements.find((statement) => statement.id?.name === 's299');
    const lineOf = (text: string) => text.split('\n').findIndex((line) => line.startsWith('  s299 [')) + 1;
    expect(last?.span).toMatchObject({ start: { line: lineOf(edited) } });
    expect(lineOf(edited)).toBe(lineOf(source) + 1);
  });

  it('reports a syntax error as a parse without it does, and caches nothing for the failing chunk', () => {
    const broken = pipeline(50, '  oops [label="x" = ]');
    const cache = createDotParseCache();
    const failure = (options: Parameters<typeof parseDot>[1]) => {
      try {
        parseDot(broken, options);
      } catch (error) {
        if (DotSyntaxError.isInstance(error)) return error.message;
        throw error;
      }
      throw new Error('parsed');
    };
    const message = failure({ filename: 'broken.dot' });
    expect(failure({ filename: 'broken.dot', cache })).toBe(message);
    expect(failure({ filename: 'broken.dot', cache })).toBe(message);
  });

  it('keeps at most maxChars characters of chunk text, dropping the least recently used', () => {
    const cache = createDotParseCache({ maxChars: 3000 });
    const source = pipeline(400);
    parseDot(source, { cache });
    expect(cache.size).toBeLessThanOrEqual(3000);
    expect(cache.size).toBeGreaterThan(0);
    // The last chunks stay; parsing again matches the dropped first ones again.
    const before = cache.stats;
    expect(plain(source, { cache })).toEqual(plain(source));
    expect(cache.stats.misses).toBeGreaterThan(before.misses);
  });

  it.skipIf(corpusDir === undefined)('changes no AST of the corpus, parsed twice through one cache', () => {
    const cache = createDotParseCache();
    const names = readdirSync(corpusDir!).filter((name) => name.endsWith('.dot'));
    expect(names.length).toBeGreaterThan(0);
    for (const round of [1, 2]) {
      for (const name of names) {
        const source = readFileSync(path.join(corpusDir!, name), 'utf8');
        expect(plain(source, { filename: name, cache }), `${name}, round ${round}`).toEqual(
          plain(source, { filename: name }),
        );
      }
    }
    expect(cache.stats.hits).toBeGreaterThanOrEqual(cache.stats.misses);
  });
});
