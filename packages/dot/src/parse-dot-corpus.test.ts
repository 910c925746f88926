import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import type { DotAttribute, DotStatement } from './dot-ast.js';
import { parseDot, parseDotWithoutChunks } from './parse-dot.js';

// CI clones the repository beside `shared/`, so the corpus is `<repo>/../shared/corpus/dot` (or ATTRACTOR_CORPUS_DIR).
const corpusDir = corpusDotDirectory('the parseDot corpus tests of @attractor/dot');
const corpusFiles =
  corpusDir === undefined
    ? []
    : readdirSync(corpusDir)
        .filter((name) => name.endsWith('.dot'))
        .sort();

// Corpus files the parser rejects on purpose, with the reason. None today: every one of the 25
// files is in the accepted dialect. A file added here must still fail, or this test says so.
const expectedRejections: Readonly<Record<string, string>> = {};

function readCorpus(name: string): string {
  return readFileSync(path.join(corpusDir!, name), 'utf8');
}

function allAttributes(statements: readonly DotStatement[]): DotAttribute[] {
  return statements.flatMap((statement) => {
    switch (statement.kind) {
      case 'subgraph':
        return allAttributes(statement.statements);
      case 'attributeDeclaration':
        return [statement.attribute];
      default:
        return [...statement.attributes];
    }
  });
}

describe.skipIf(corpusDir === undefined)(
  'parseDot on the corpus of real pipelines (../shared/corpus/dot)',
  () => {
    it('finds the 25 corpus files', () => {
      expect(corpusFiles).toHaveLength(25);
    });

    it.each(corpusFiles.filter((name) => !(name in expectedRejections)))('parses %s', (name) => {
      const source = readCorpus(name);
      const ast = parseDot(source, { filename: name });
      expect(ast.kind).toBe('digraph');
      expect(ast.statements.length).toBeGreaterThan(0);
      // Every value's span covers exactly its raw text.
      for (const attribute of allAttributes(ast.statements)) {
        expect(source.slice(attribute.value.span.start.offset, attribute.value.span.end.offset)).toBe(
          attribute.value.raw,
        );
      }
    });

    it.each(corpusFiles)(
      'gives the same AST for %s as one whole-text match (chunking is invisible)',
      (name) => {
        const source = readCorpus(name);
        const chunked = parseDot(source, { filename: name });
        const whole = parseDotWithoutChunks(source, { filename: name });
        // `toEqual` compares the spans' offsets; JSON their line/column positions and file names as well.
        expect(chunked).toEqual(whole);
        expect(JSON.stringify(chunked)).toBe(JSON.stringify(whole));
      },
    );

    it('rejects exactly the corpus files listed with a reason', () => {
      const rejected = corpusFiles.filter((name) => {
        try {
          parseDot(readCorpus(name), { filename: name });
          return false;
        } catch {
          return true;
        }
      });
      expect(rejected).toEqual(Object.keys(expectedRejections).sort());
    });

    it('keeps "##" Markdown headings inside kitchen-sink prompts as string content', () => {
      const ast = parseDot(readCorpus('2389-research__tracker__kitchen-sink.dot'));
      const prompts = allAttributes(ast.statements).filter((attribute) => attribute.key === 'prompt');
      expect(prompts.some((prompt) => prompt.value.value.includes('\n## Role\n'))).toBe(true);
    });

    it('keeps the "#id" stylesheet lines of 11-ensemble as string content', () => {
      const ast = parseDot(readCorpus('fabro-sh__fabro__11-ensemble.dot'));
      const stylesheet = allAttributes(ast.statements).find(
        (attribute) => attribute.key === 'model_stylesheet',
      );
      expect(stylesheet?.value.value).toContain('#opus    { model: claude-opus-4-6;      }');
      expect(stylesheet?.value.value.split('\n').filter((line) => line.trim().startsWith('#'))).toHaveLength(
        5,
      );
    });

    it('reads the bare dotted keys of sub-workflow', () => {
      const ast = parseDot(readCorpus('fabro-sh__fabro__sub-workflow.dot'));
      expect(allAttributes(ast.statements).map((attribute) => attribute.key)).toContain(
        'stack.child_workflow',
      );
    });
  },
);
