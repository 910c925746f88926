/**
 * The file half of lints `subgraph_ref` (spec §9.4 sub-pipeline nodes) and `manager_child_dotfile` (spec §4.11
 * manager loops): every `graph_ref` and `stack.child_dotfile` names a DOT file that exists, is valid itself, and
 * does not lead back to a file that includes it. `prepareGraph` runs it when it is
 * given a file reader; the graph package does no I/O of its own.
 */
import { dirname, isAbsolute, join, normalize, relative } from 'node:path';
import type { Graph, GraphAttribute, GraphNode } from '../graph.js';
import { handlerTraits } from '../handler-traits.js';
import type { Diagnostic } from './diagnostic.js';
import type { InputSchemaFile } from './input-schema-file.js';
import { resolveGraphRef } from './resolve-graph-ref.js';
import { attributeSpan, nodeSpan, plainSpan } from './source-location.js';
import { checkSubgraphInterface } from './subgraph-interface.js';

/** How deep sub-pipelines may nest before validation stops following them. */
export const MAX_GRAPH_REF_DEPTH = 16;

/**
 * Reads a DOT file for `prepareGraph`: its text, or `undefined` when there is no such file. Throwing (a
 * directory, no permission) is reported as "cannot be read" with the error's message.
 */
export type GraphFileReader = (path: string) => string | undefined;

/** What {@link checkGraphRefs} needs besides the graph. */
export interface GraphRefCheck {
  readonly read: GraphFileReader;
  /** The files from the top one down to this graph's, for cycles. */
  readonly chain: readonly string[];
  /**
   * Prepares a referenced file (`prepareGraph` with the same reader and the longer chain): its graph, its findings,
   * and the input schema file it read, when its `inputs` names one it could read.
   */
  readonly prepare: (
    source: string,
    filename: string,
    chain: readonly string[],
  ) => {
    readonly graph?: Graph;
    readonly diagnostics: readonly Diagnostic[];
    readonly inputSchema?: ChildInputSchema;
  };
  /** Findings per referenced file, shared by one top-level `prepareGraph` call. */
  readonly cache: Map<string, FileFinding>;
}

/** A child pipeline's input schema file as its preparation read it, with the path it was read from. */
type ChildInputSchema = InputSchemaFile & { readonly path: string };

/**
 * The problem of one referenced file, or none (with the file's graph and the input schema file it read, for the
 * checks of its interface).
 */
export type FileFinding =
  | { readonly ok: true; readonly graph?: Graph; readonly inputSchema?: ChildInputSchema }
  | { readonly ok: false; readonly message: string; readonly fix: string };

/** The child DOT file a node runs, as written, with the attribute that names it (see {@link childPipelineRef}). */
export interface ChildPipelineRef {
  /** The path as written (trimmed), relative to the parent DOT file unless absolute. */
  readonly ref: string;
  /** The attribute holding it: the node's `graph_ref` or `stack.child_dotfile`, or the graph's `stack.child_dotfile`. */
  readonly attribute: GraphAttribute;
  /** Its canonical key. */
  readonly key: 'graph_ref' | 'stack.child_dotfile';
}

/**
 * The child DOT file a node runs: `graph_ref` of a `subgraph` node (spec §9.4), or `stack.child_dotfile` of a
 * `stack.manager_loop` node, the node's else the graph's (spec §4.11). `undefined` for other nodes and for a missing
 * or blank attribute. Lint (`subgraph_ref`, `manager_child_dotfile`) and the handlers that run child pipelines read
 * the reference through this one function.
 */
export function childPipelineRef(graph: Graph, node: GraphNode): ChildPipelineRef | undefined {
  const traits = handlerTraits(graph, node);
  let attribute: GraphAttribute | undefined;
  let key: ChildPipelineRef['key'];
  if (traits.runsSubgraph === true) {
    attribute = node.attributes.graph_ref;
    key = 'graph_ref';
  } else if (traits.supervisesChild === true) {
    const own = node.attributes['stack.child_dotfile'];
    attribute = (own?.value.trim() ?? '') !== '' ? own : graph.attributes['stack.child_dotfile'];
    key = 'stack.child_dotfile';
  } else {
    return undefined;
  }
  const ref = attribute?.value.trim() ?? '';
  return attribute === undefined || ref === '' ? undefined : { ref, attribute, key };
}

/**
 * Checks the child DOT file of every `subgraph` node (`graph_ref`, rule `subgraph_ref`) and every
 * `stack.manager_loop` node (`stack.child_dotfile`, rule `manager_child_dotfile`): ERROR when the file does not
 * exist or cannot be read, when it has errors of its own (the first is quoted with its `file:line:col`), when it
 * leads back to a file on the way here (a cycle), or when nesting passes {@link MAX_GRAPH_REF_DEPTH}. Each
 * diagnostic points at the attribute's value (for a manager loop's graph-level `stack.child_dotfile`, the graph
 * attribute's). A `subgraph` node whose file is valid is checked against the child's `inputs` and `outputs`
 * (`checkSubgraphInterface`: rules `subgraph_input`, `out_map_field`).
 */
export function checkGraphRefs(graph: Graph, check: GraphRefCheck): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of graph.nodes.values()) {
    const child = childPipelineRef(graph, node);
    if (child === undefined) continue;
    const path = resolveGraphRef({ ref: child.ref, parentFilename: graph.filename });
    const finding = checkFile(
      {
        ref: child.ref,
        key: child.attribute.writtenKey ?? child.attribute.key,
        path,
        parentDir: dirname(graph.filename ?? '.'),
      },
      check,
    );
    if (finding.ok) {
      if (child.key === 'graph_ref' && finding.graph !== undefined) {
        diagnostics.push(
          ...checkSubgraphInterface({
            graph,
            node,
            child: finding.graph,
            ref: child.ref,
            ...(finding.inputSchema === undefined ? {} : { inputSchema: finding.inputSchema }),
          }),
        );
      }
      continue;
    }
    const span = attributeSpan(child.attribute, nodeSpan(node));
    diagnostics.push({
      rule: child.key === 'graph_ref' ? 'subgraph_ref' : 'manager_child_dotfile',
      severity: 'error',
      message: `${child.key === 'graph_ref' ? 'Subgraph' : 'Manager loop'} node "${node.id}": ${finding.message}`,
      nodeId: node.id,
      fix: finding.fix,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
    });
  }
  return diagnostics;
}

/** A child file reference to check: as written, under the key written, where it resolves, from which directory. */
interface FileRef {
  readonly ref: string;
  readonly key: string;
  readonly path: string;
  readonly parentDir: string;
}

function checkFile(file: FileRef, check: GraphRefCheck): FileFinding {
  const { ref, key, path } = file;
  const cycleStart = check.chain.indexOf(path);
  if (cycleStart !== -1) {
    return {
      ok: false,
      message: `${key} "${ref}" leads back to ${path}, a pipeline that includes this one: ${[...check.chain.slice(cycleStart), path].join(' → ')}. Running it would never end.`,
      fix: 'Remove the cycle: a pipeline cannot include itself, directly or through its sub-pipelines.',
    };
  }
  if (check.chain.length >= MAX_GRAPH_REF_DEPTH) {
    return {
      ok: false,
      message: `${key} "${ref}" nests sub-pipelines more than ${MAX_GRAPH_REF_DEPTH} deep (${[...check.chain, path].join(' → ')}).`,
      fix: 'Flatten the nesting: inline some of the sub-pipelines into their parents.',
    };
  }
  const cached = check.cache.get(`${key} ${path}`);
  if (cached !== undefined) return cached;
  const finding = readAndPrepare(file, check);
  check.cache.set(`${key} ${path}`, finding);
  return finding;
}

function readAndPrepare(file: FileRef, check: GraphRefCheck): FileFinding {
  const { ref, key, path } = file;
  let source: string | undefined;
  try {
    source = check.read(path);
  } catch (error) {
    return {
      ok: false,
      message: `${key} "${ref}" cannot be read (${path}: ${error instanceof Error ? error.message : String(error)}).`,
      fix: `Point ${key} at a readable DOT file (relative to the directory of this DOT file).`,
    };
  }
  if (source === undefined) {
    // A path written from a root above is plain (`workflows/review/child.fabro`), never absolute or `../`.
    const found =
      isAbsolute(ref) || normalize(ref).startsWith('..')
        ? undefined
        : findInAncestors(ref, file.parentDir, check.read);
    if (found !== undefined) {
      // Fabro projects may write child workflow paths from the project's workflow root.
      const written = relative(file.parentDir, found.path);
      return {
        ok: false,
        message: `${key} "${ref}" does not exist next to this DOT file (looked for ${path}), but ${found.path} does: the path is written from ${found.root}, as some projects of other runners write it from their workflow root.`,
        fix: `Write ${key}="${written}": paths are relative to the directory of this DOT file.`,
      };
    }
    return {
      ok: false,
      message: `${key} "${ref}" does not exist (looked for ${path}).`,
      fix: `Fix the path, which is relative to the directory of this DOT file, or create ${path}.`,
    };
  }
  const prepared = check.prepare(source, path, [...check.chain, path]);
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (errors.length === 0) {
    return {
      ok: true,
      ...(prepared.graph === undefined ? {} : { graph: prepared.graph }),
      ...(prepared.inputSchema === undefined ? {} : { inputSchema: prepared.inputSchema }),
    };
  }
  const first = errors[0]!;
  const where =
    first.span === undefined ? path : `${path}:${first.span.start.line}:${first.span.start.column}`;
  return {
    ok: false,
    message: `the sub-pipeline "${ref}" has ${errors.length} error${errors.length === 1 ? '' : 's'}; the first: ${where}: ${first.message}`,
    fix: `Fix ${path}; validate it on its own to see every problem.`,
  };
}

/** How many directories above the DOT file's {@link findInAncestors} looks. */
const ANCESTOR_LEVELS = 4;

/**
 * The file a relative `ref` names when it is read from one of the few directories above the parent DOT file's (a
 * project root, where a Fabro project's `stack.child_workflow` paths start), for a fix that says what to write.
 */
function findInAncestors(
  ref: string,
  parentDir: string,
  read: GraphFileReader,
): { readonly path: string; readonly root: string } | undefined {
  let root = parentDir;
  for (let level = 0; level < ANCESTOR_LEVELS; level++) {
    const above = dirname(root);
    if (above === root) return undefined;
    root = above;
    const candidate = join(root, ref);
    try {
      if (read(candidate) !== undefined) return { path: candidate, root };
    } catch {
      // A directory or an unreadable file: not the one meant.
    }
  }
  return undefined;
}
