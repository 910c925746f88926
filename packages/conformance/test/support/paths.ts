/** Where the repository, the built CLI and the shared corpus are (CI clones the repository beside shared/). */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusDotDirectory } from '../../../../tools/corpus.mjs';

/** The repository root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

/**
 * The shared corpus of real pipelines written for other Attractor implementations (`$ATTRACTOR_CORPUS_DIR/dot` or
 * `../shared/corpus/dot`), or `undefined` where neither exists: the corpus tests then skip, saying so in one line.
 */
export const corpusDirectory = corpusDotDirectory('the corpus tests of @attractor/conformance');

/** The `attractor` command as installed (apps/cli/bin/attractor.js, which loads the bundle built in apps/cli/dist). */
export const cliBin = resolve(repoRoot, 'apps', 'cli', 'bin', 'attractor.js');

/** The graph package's record of every corpus file's diagnostics, checked by hand (reused, not duplicated). */
export const corpusDiagnosticsFile = resolve(
  repoRoot,
  'packages',
  'graph',
  'test',
  'corpus-diagnostics.json',
);
