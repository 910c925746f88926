import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import { readFixture } from '../test/read-fixture.js';
import { DotSyntaxError } from './errors/dot-syntax-error.js';
import { parseDot } from './parse-dot.js';

const seeds = [
  readFixture('spec-branch.dot'),
  readFixture('spec-human-gate.dot'),
  readFixture('multi-line-attributes.dot'),
  readFixture('spec-stylesheet.dot'),
];
// Characters that matter to the scanner and the grammar, so mutations hit the interesting paths.
const TOKENS = [
  '"',
  '\\',
  '[',
  ']',
  '{',
  '}',
  '=',
  ';',
  ',',
  '-',
  '>',
  '<',
  '/',
  '*',
  '#',
  '\n',
  ' ',
  'a',
  '1',
  '+',
];

type Mutation =
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'duplicate'; at: number; length: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 4 })),
  }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: fc.constantFrom(...TOKENS) }),
  fc.record({
    kind: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 40 }),
  }),
);

function mutate(source: string, mutations: readonly Mutation[]): string {
  let text = source;
  for (const change of mutations) {
    const at = change.at % (text.length + 1);
    switch (change.kind) {
      case 'delete':
        text = text.slice(0, at) + text.slice(at + change.length);
        break;
      case 'insert':
        text = text.slice(0, at) + change.text + text.slice(at);
        break;
      case 'replace':
        text = text.slice(0, at) + change.text + text.slice(at + 1);
        break;
      case 'duplicate':
        text = text.slice(0, at) + text.slice(at, at + change.length) + text.slice(at);
        break;
    }
  }
  return text;
}

describe('parseDot under random mutations of valid files (property)', () => {
  it('either returns an AST or throws DotSyntaxError with a location inside the text', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...seeds.keys()),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        (seedIndex, mutations) => {
          const text = mutate(seeds[seedIndex]!, mutations);
          try {
            const ast = parseDot(text, { filename: 'mutated.dot' });
            expect(ast.kind).toBe('digraph');
          } catch (error) {
            if (!DotSyntaxError.isInstance(error)) throw error;
            expect(error.location.offset).toBeGreaterThanOrEqual(0);
            expect(error.location.offset).toBeLessThanOrEqual(text.length);
            expect(error.hint.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 600, seed: 20261129, endOnFailure: true },
    );
  }, 60_000);

  const corpusDir = corpusDotDirectory('the corpus-file mutation test of @attractor/dot');
  it.skipIf(corpusDir === undefined)(
    'handles every mutation of the largest corpus file without hanging (bounded runs)',
    () => {
      const source = readFileSync(join(corpusDir!, 'danshapiro__kilroy__reference_template.dot'), 'utf8');
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
          try {
            parseDot(mutate(source, mutations));
          } catch (error) {
            if (!DotSyntaxError.isInstance(error)) throw error;
          }
        }),
        { numRuns: 150, seed: 7, endOnFailure: true },
      );
    },
    60_000,
  );
});
