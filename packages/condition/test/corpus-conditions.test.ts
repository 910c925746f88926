import { describe, expect, it } from 'vitest';
import { ConditionSyntaxError } from '../src/errors/condition-syntax-error.js';
import { parseCondition } from '../src/parse-condition.js';
import { corpusDirectory, readCorpusConditions } from './read-corpus.js';

const conditions = readCorpusConditions();

/** The corpus conditions that use operators of spec §10.7, with the operator the error must name. */
const EXTENDED: ReadonlyArray<readonly [file: string, text: string, operator: string, offset: number]> = [
  ['jhugman__attractor-pi-dev__ralph-wiggum-pipeline.dot', 'tool.output contains "id"', 'contains', 12],
  ['jhugman__attractor-pi-dev__ralph-wiggum-pipeline.dot', '!tool.output contains "id"', '!', 0],
];

function isExtended(text: string): boolean {
  return EXTENDED.some(([, extendedText]) => extendedText === text);
}

describe.skipIf(corpusDirectory === undefined)(
  'parseCondition on the corpus of real pipelines (spec §10.2)',
  () => {
    it('finds the conditions of the corpus', () => {
      expect(conditions.length).toBeGreaterThan(200);
      expect(new Set(conditions.map((condition) => condition.file)).size).toBeGreaterThan(15);
    });

    const valid = conditions.filter((condition) => !isExtended(condition.text));
    it.each(valid.map((condition) => [`${condition.file}:${condition.line}`, condition.text] as const))(
      '%s parses %j',
      (_where, text) => {
        const ast = parseCondition(text);
        expect(ast.clauses.length).toBeGreaterThan(0);
        expect(
          ast.clauses.map((clause) =>
            text.slice(clause.span.offset, clause.span.offset + clause.span.length),
          ),
        ).toEqual(text.split('&&').map((part) => part.trim()));
      },
    );

    it.each(EXTENDED)('%s: %j fails naming %j', (file, text, operator, offset) => {
      expect(conditions.some((condition) => condition.file === file && condition.text === text)).toBe(true);
      let error: unknown;
      try {
        parseCondition(text);
      } catch (caught) {
        error = caught;
      }
      expect(ConditionSyntaxError.isInstance(error)).toBe(true);
      const syntaxError = error as ConditionSyntaxError;
      expect(syntaxError.unsupportedOperator).toBe(operator);
      expect(syntaxError.location.offset).toBe(offset);
      expect(syntaxError.shortMessage).toMatch(/is not part of the condition language$/);
      expect(syntaxError.message).toContain('Fix: ');
    });

    it('rejects exactly the corpus conditions that use extended operators', () => {
      const rejected = conditions.filter((condition) => {
        try {
          parseCondition(condition.text);
          return false;
        } catch (error) {
          if (ConditionSyntaxError.isInstance(error)) return true;
          throw error;
        }
      });
      expect(rejected.map((condition) => condition.text).sort()).toEqual(
        EXTENDED.map(([, text]) => text).sort(),
      );
    });
  },
);
