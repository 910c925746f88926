import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';

/**
 * The shared corpus of real pipelines written by other people for other Attractor runners (ATTRACTOR_CORPUS_DIR or
 * ../shared/corpus), or `undefined` where there is none: the corpus tests then skip, saying so in one line.
 */
export const corpusDirectory = corpusDotDirectory('the corpus tests of @attractor/condition');

/** One `condition="..."` attribute value found in a corpus file, with DOT's `\"` escapes resolved. */
export interface CorpusCondition {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/**
 * Every `condition="..."` value of every corpus file. The tests of this package may not import the
 * DOT parser (CONTRIBUTING.md "Dependency direction"), and every condition in the corpus is a plain quoted
 * attribute, so a pattern over DOT's quoted-string syntax finds them all.
 */
export function readCorpusConditions(): CorpusCondition[] {
  const found: CorpusCondition[] = [];
  const directory = corpusDirectory;
  if (directory === undefined) return found;
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.dot'))) {
    const source = readFileSync(path.join(directory, file), 'utf8');
    for (const match of source.matchAll(/\bcondition\s*=\s*"((?:[^"\\]|\\.)*)"/g)) {
      const line = source.slice(0, match.index).split('\n').length;
      found.push({ file, line, text: match[1]!.replaceAll('\\"', '"') });
    }
  }
  return found;
}
