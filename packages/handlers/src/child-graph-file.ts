/**
 * Reads and prepares the child pipeline of a manager loop (spec §4.11) or a subgraph node (spec §9.4), and
 * picks a fresh run directory for it.
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { FileRefusedError, readTextFileSync, type StageWorkspace } from '@attractor/engine';
import {
  childPipelineRef,
  formatDiagnostic,
  type Graph,
  type GraphNode,
  graphAttribute,
  nodeAttribute,
  prepareGraph,
  resolveGraphRef,
} from '@attractor/graph';

/** The result of {@link loadChildGraph}: the graph, or why there is none. */
export type ChildGraphResult =
  | { readonly ok: true; readonly graph: Graph; readonly path: string }
  | { readonly ok: false; readonly path: string; readonly reason: string };

/**
 * Resolves `childDotfile` against the directory of the parent's DOT file (`parentFilename`), or against `workdir`
 * when the parent graph has no file name: `resolveGraphRef` (the rule lint `subgraph_ref` checks files by), made
 * absolute against `workdir`.
 */
export function resolveChildPath(options: {
  readonly childDotfile: string;
  readonly parentFilename?: string | undefined;
  readonly workdir: string;
}): string {
  return resolve(
    options.workdir,
    resolveGraphRef({ ref: options.childDotfile, parentFilename: options.parentFilename }),
  );
}

/**
 * The child DOT file a node runs, as written, and the attribute that names it: `graph_ref` of a `subgraph` node
 * (spec §9.4), or `stack.child_dotfile` of a `stack.manager_loop` node, the node's else the graph's (spec §4.11).
 * `undefined` for other nodes and when the attribute is missing or blank. (`childPipelineRef` of
 * `@attractor/graph`, which lint uses too.)
 */
export function childDotfileOf(
  node: GraphNode,
  graph: Graph,
): { readonly ref: string; readonly attribute: 'graph_ref' | 'stack.child_dotfile' } | undefined {
  const child = childPipelineRef(graph, node);
  return child === undefined ? undefined : { ref: child.ref, attribute: child.key };
}

/**
 * A manager loop's child DOT file as written: the node's `stack.child_dotfile`, else the graph's, else `''`. Unlike
 * {@link childDotfileOf} it does not look at the node's handler type (the manager loop handler may be registered
 * under a custom type).
 */
export function managerChildDotfile(node: GraphNode, graph: Graph): string {
  return (
    nodeAttribute(node, 'stack.child_dotfile')?.trim() ||
    graphAttribute(graph, 'stack.child_dotfile')?.trim() ||
    ''
  );
}

/** Options of {@link loadChildGraph}. */
export interface LoadChildGraphOptions {
  /** The attribute that named the file, for the hint of a missing file. Default: `stack.child_dotfile`. */
  readonly attribute?: string;
  /**
   * The DOT file of the pipeline that names the child (`graph.filename`). The reason of an invalid child quotes its
   * lines only when the child lies in that file's directory: a child elsewhere (`graph_ref="/etc/passwd"`) is
   * described by its diagnostics' positions and rules alone, so that no content of a file outside the pipeline's
   * own directory reaches a failure reason, the events or a log. Default: none (never quoted).
   */
  readonly parentFilename?: string | undefined;
}

/**
 * Reads, parses, transforms and validates a child DOT file; errors come back formatted with file:line:col. The
 * files its own `subgraph` nodes name are checked too (missing, invalid, a cycle back to it: lint `subgraph_ref`).
 */
export async function loadChildGraph(
  path: string,
  options: LoadChildGraphOptions = {},
): Promise<ChildGraphResult> {
  let source: string;
  try {
    source = readTextFileSync(path, { what: 'Child pipeline' });
  } catch (error) {
    if (FileRefusedError.isInstance(error)) return { ok: false, path, reason: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      path,
      reason: `child pipeline ${path} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? String(error))}); check ${options.attribute ?? 'stack.child_dotfile'}, which is relative to the parent DOT file`,
    };
  }
  const prepared = prepareGraph(source, { filename: path, readGraphFile: readGraphFileSync });
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    if (!isInsideDirectoryOf(path, options.parentFilename)) {
      const where = errors
        .map((diagnostic) => {
          const start = diagnostic.span?.start;
          return `${start === undefined ? '' : `${start.line}:${start.column} `}${diagnostic.rule}`;
        })
        .join(', ');
      return {
        ok: false,
        path,
        reason: `child pipeline ${path} is not a valid pipeline (${errors.length} error${errors.length === 1 ? '' : 's'}: ${where}); it lies outside the pipeline's directory, so its content is not shown: validate it with \`attractor validate ${path}\``,
      };
    }
    return {
      ok: false,
      path,
      reason: `child pipeline ${path} is invalid:\n${errors.map((diagnostic) => formatDiagnostic(diagnostic, source, { filename: path })).join('\n')}`,
    };
  }
  return { ok: true, graph: prepared.graph, path };
}

/** Whether `path` lies in the directory of `parentFilename` (or below it). */
function isInsideDirectoryOf(path: string, parentFilename: string | undefined): boolean {
  if (parentFilename === undefined) return false;
  const rel = relative(dirname(resolve(parentFilename)), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** `prepareGraph`'s reader: the file's text, `undefined` when it does not exist. */
function readGraphFileSync(path: string): string | undefined {
  try {
    return readTextFileSync(path, { what: 'The file' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * A name for a child pipeline's run inside the stage that no earlier attempt or interrupted run used: `child`, else
 * `child-2`, `child-3`, ... (a name is used once its run has a manifest). The file store keeps it in
 * `{stageDir}/{name}/`.
 */
export async function freshChildName(stage: StageWorkspace): Promise<string> {
  for (let index = 1; ; index++) {
    const name = index === 1 ? 'child' : `child-${index}`;
    if ((await stage.child(name).readManifest()) === undefined) return name;
  }
}
