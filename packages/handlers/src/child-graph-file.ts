/**
 * Reads and prepares the child pipeline of a manager loop (spec §4.11).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { formatDiagnostic, type Graph, prepareGraph } from '@attractor/graph';

/** The result of {@link loadChildGraph}: the graph, or why there is none. */
export type ChildGraphResult =
  | { readonly ok: true; readonly graph: Graph; readonly path: string }
  | { readonly ok: false; readonly path: string; readonly reason: string };

/**
 * Resolves `childDotfile` against the directory of the parent's DOT file (`parentFilename`), or against `workdir`
 * when the parent graph has no file name.
 */
export function resolveChildPath(options: {
  readonly childDotfile: string;
  readonly parentFilename?: string | undefined;
  readonly workdir: string;
}): string {
  if (isAbsolute(options.childDotfile)) return options.childDotfile;
  const base =
    options.parentFilename === undefined
      ? options.workdir
      : dirname(resolve(options.workdir, options.parentFilename));
  return resolve(base, options.childDotfile);
}

/** Reads, parses, transforms and validates a child DOT file; errors come back formatted with file:line:col. */
export async function loadChildGraph(path: string): Promise<ChildGraphResult> {
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      path,
      reason: `child pipeline ${path} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}); check stack.child_dotfile, which is relative to the parent DOT file`,
    };
  }
  const prepared = prepareGraph(source, { filename: path });
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    return {
      ok: false,
      path,
      reason: `child pipeline ${path} is invalid:\n${errors.map((diagnostic) => formatDiagnostic(diagnostic, source)).join('\n')}`,
    };
  }
  return { ok: true, graph: prepared.graph, path };
}
