/**
 * Where a file a DOT file names (`graph_ref`, `stack.child_dotfile`, `prompt="@file"`, a schema file) is.
 */
import { dirname, isAbsolute, join, normalize } from 'node:path';

/**
 * The path a `graph_ref` names: as written when absolute, else relative to the directory of the file that
 * contains it (`parentFilename`), normalised. Without a parent file name, relative to the reader's working
 * directory. The `subgraph` handler resolves the same way (spec §9.4).
 */
export function resolveGraphRef(options: {
  readonly ref: string;
  readonly parentFilename?: string | undefined;
}): string {
  if (isAbsolute(options.ref)) return normalize(options.ref);
  return normalize(join(dirname(options.parentFilename ?? '.'), options.ref));
}
