// Where the tests find the external corpus of real pipelines (`<corpus>/dot/*.dot` with SOURCES.md), written by
// other people for other Attractor runners. It is not part of this repository: CI has it beside the clone
// (`../shared/corpus`); anyone else points ATTRACTOR_CORPUS_DIR at a copy. Without either, the corpus tests skip
// and say so in one line, so that `pnpm test` passes on a fresh clone with nothing beside it.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const told = new Set();

/**
 * The corpus's `dot` directory: `$ATTRACTOR_CORPUS_DIR/dot`, else `<repository>/../shared/corpus/dot`, else
 * `undefined` after writing one line to stderr that names `what` (the tests that skip) and how to enable them.
 * A set ATTRACTOR_CORPUS_DIR that has no `dot` directory is an error, not a skip.
 * @param {string} what the tests that need the corpus, for the skip line
 * @returns {string | undefined}
 */
export function corpusDotDirectory(what) {
  const configured = process.env.ATTRACTOR_CORPUS_DIR;
  if (configured !== undefined && configured !== '') {
    const dir = join(resolve(configured), 'dot');
    if (!existsSync(dir))
      throw new Error(
        `ATTRACTOR_CORPUS_DIR=${configured} has no dot/ directory of .dot files; unset it or fix the path`,
      );
    return dir;
  }
  const beside = resolve(repositoryRoot, '..', 'shared', 'corpus', 'dot');
  if (existsSync(beside)) return beside;
  if (!told.has(what)) {
    told.add(what);
    process.stderr.write(
      `corpus not found: skipping ${what}; set ATTRACTOR_CORPUS_DIR to a corpus directory (with dot/) to run them\n`,
    );
  }
  return undefined;
}
