/**
 * The shared corpus, laid out again as upstream had it. Each corpus file is a flattened copy
 * (`<owner>__<repo>__<name>.dot`); SOURCES.md records its repository and path. Copying every file back to
 * `<root>/<owner>/<repo>/<path>` makes references between pipelines (`graph_ref="../review-core/pipeline.dot"`,
 * `stack.child_dotfile=...`) resolve when the referenced file is in the corpus too.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corpusDirectory } from './paths.js';

/** One corpus file: its name in the corpus, its upstream repository and path, and where it was copied. */
export interface CorpusEntry {
  readonly file: string;
  readonly repo: string;
  readonly upstreamPath: string;
  readonly path: string;
}

/** The corpus's `.dot` files, sorted by name. */
export function corpusFiles(): string[] {
  if (corpusDirectory === undefined) return [];
  return readdirSync(corpusDirectory)
    .filter((name) => name.endsWith('.dot'))
    .sort();
}

/** Copies every corpus file to its upstream path under `root` and returns the entries, sorted by corpus name. */
export function layOutCorpus(root: string): CorpusEntry[] {
  const directory = corpusDirectory;
  if (directory === undefined) return [];
  const sources = readFileSync(join(directory, 'SOURCES.md'), 'utf8');
  const rows = new Map<string, { repo: string; upstreamPath: string }>();
  for (const match of sources.matchAll(
    /^\|\s*\d+\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*`([^`]+)`\s*\|/gm,
  )) {
    rows.set(match[1]!, { repo: match[2]!, upstreamPath: match[3]! });
  }
  return corpusFiles().map((file) => {
    const row = rows.get(file);
    if (row === undefined) throw new Error(`${file} has no row in ${join(directory, 'SOURCES.md')}`);
    const path = join(root, row.repo, row.upstreamPath);
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(join(directory, file), path);
    return { file, ...row, path };
  });
}
