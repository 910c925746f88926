import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The shared corpus of real pipelines written by other people for other Attractor runners (ATTRACTOR_CORPUS_DIR or
 * ../shared/corpus), or `undefined` where there is none: the corpus tests then skip, saying so in one line.
 */
export const corpusDirectory = corpusDotDirectory('the corpus tests of @attractor/stylesheet');

/** The `model_stylesheet="..."` value of one corpus file, with DOT's `\"` escapes resolved. */
export interface CorpusStylesheet {
  readonly file: string;
  readonly text: string;
}

/**
 * The `model_stylesheet="..."` attribute value in DOT source, with DOT's `\"` escapes resolved, or
 * `undefined` when there is none.
 */
export function modelStylesheetOf(dot: string): string | undefined {
  const match = /\bmodel_stylesheet\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(dot);
  return match?.[1]?.replaceAll('\\"', '"');
}

/**
 * The model stylesheet of every corpus file that has one. This package may not import the DOT
 * parser (CONTRIBUTING.md "Dependency direction"), and every stylesheet in the corpus is a plain quoted
 * attribute, so a pattern over DOT's quoted-string syntax finds them all.
 */
export function readCorpusStylesheets(): CorpusStylesheet[] {
  const found: CorpusStylesheet[] = [];
  const directory = corpusDirectory;
  if (directory === undefined) return found;
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.dot'))) {
    const text = modelStylesheetOf(readFileSync(path.join(directory, file), 'utf8'));
    if (text !== undefined) found.push({ file, text });
  }
  return found;
}

/** The text of `test/fixtures/<name>`. */
export function readFixture(name: string): string {
  return readFileSync(path.join(repoRoot, 'packages', 'stylesheet', 'test', 'fixtures', name), 'utf8');
}
