/**
 * The corpus's `dot` directory: `$ATTRACTOR_CORPUS_DIR/dot`, else `<repository>/../shared/corpus/dot`, else
 * `undefined` after writing one line to stderr that names `what` (the tests that skip) and how to enable them.
 * @throws Error when ATTRACTOR_CORPUS_DIR is set but has no `dot` directory.
 */
export function corpusDotDirectory(what: string): string | undefined;
