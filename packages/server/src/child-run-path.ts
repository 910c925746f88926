/**
 * Child runs (sub-pipelines, manager loops: spec §9.4 and docs/architecture.md "Run directory") as the API
 * and the web UI name them: a path relative to the top run's directory that ends in the child's own
 * directory, which the engine creates inside the stage directory of the node that started it: `checks/child`,
 * `checks/child-2` (a later attempt), `fan/branches/a/checks/child` (in a parallel branch),
 * `checks/visits/1/child` (an earlier visit), and `checks/child/review/child` (a child of a child). Pure (no
 * I/O): the web UI imports it too.
 */

/** Where a child run's events come from: its run id and the branch path every one of its events starts with. */
export interface ChildRunPath {
  /** The path as given, `/`-separated, relative to the top run directory. */
  readonly path: string;
  /** The child's run id (its directory's name): `child`, `child-2`, ... */
  readonly runId: string;
  /**
   * The `branchPath` prefix of the child's events: the branch ids leading to each ancestor's node, then
   * `child:<node>` per level (`['a', 'child:checks']` for `fan/branches/a/checks/child`).
   */
  readonly basePath: readonly string[];
  /** The node of the parent (the nearest ancestor run) that started the child. */
  readonly parentNode: string;
}

const NODE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BRANCH = /^[A-Za-z0-9._-]+$/;
const CHILD = /^child(?:-[0-9]+)?$/;
/** Deepest nesting accepted (levels of parallel branches plus children), as a bound on the path's length. */
const MAX_SEGMENTS = 96;

/**
 * Parses a child run path; `undefined` when it is not one (anything else, `..` included). Segments after a node:
 * `branches/<branch>/<node>` (a stage in a parallel branch), `visits/<n>` (an earlier visit), or `child[-n]` (the
 * node's child run, after which a node of the child follows, or the path ends).
 * @example parseChildRunPath('fan/branches/a/checks/child') // { runId: 'child', basePath: ['a', 'child:checks'], ... }
 */
export function parseChildRunPath(path: string): ChildRunPath | undefined {
  const parts = path.split('/');
  if (parts.length > MAX_SEGMENTS || parts.length < 2) return undefined;
  const basePath: string[] = [];
  let node = parts[0]!;
  if (!NODE.test(node)) return undefined;
  let index = 1;
  while (index < parts.length) {
    const part = parts[index]!;
    if (part === 'branches') {
      const branch = parts[index + 1];
      const next = parts[index + 2];
      if (branch === undefined || !BRANCH.test(branch) || /^\.+$/.test(branch)) return undefined;
      if (next === undefined || !NODE.test(next)) return undefined;
      basePath.push(branch);
      node = next;
      index += 3;
    } else if (part === 'visits') {
      const visit = parts[index + 1];
      if (visit === undefined || !/^[1-9][0-9]*$/.test(visit)) return undefined;
      const after = parts[index + 2];
      // An earlier visit's directory holds the node's files and child runs, nothing else.
      if (after === undefined || !CHILD.test(after)) return undefined;
      index += 2;
    } else if (CHILD.test(part)) {
      basePath.push(`child:${node}`);
      if (index === parts.length - 1) return { path, runId: part, basePath, parentNode: node };
      const next = parts[index + 1]!;
      if (!NODE.test(next)) return undefined;
      node = next;
      index += 2;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/**
 * How an event of the top run's stream relates to the child at `child`: `own` (the child's own walk, parallel
 * branches included), `descendant` (a child of the child, any depth), or `undefined` (not under the child).
 * `relativePath` is the event's `branchPath` without the child's prefix.
 */
export function relateToChildRun(
  event: { readonly runId: string; readonly branchPath?: readonly string[] },
  child: Pick<ChildRunPath, 'runId' | 'basePath'>,
): { readonly kind: 'own' | 'descendant'; readonly relativePath: readonly string[] } | undefined {
  const path = event.branchPath ?? [];
  if (path.length < child.basePath.length) return undefined;
  for (let index = 0; index < child.basePath.length; index++)
    if (path[index] !== child.basePath[index]) return undefined;
  const relativePath = path.slice(child.basePath.length);
  if (relativePath.some((part) => part.startsWith('child:'))) return { kind: 'descendant', relativePath };
  return event.runId === child.runId ? { kind: 'own', relativePath } : undefined;
}

/**
 * The key of a child run among a live run's child events: its run id and the branch path prefix of its events
 * (for an event: up to its last `child:` segment). `undefined` for an event of the top run itself.
 */
export function childRunKey(runId: string, branchPath: readonly string[] | undefined): string | undefined {
  const path = branchPath ?? [];
  let last = -1;
  for (let index = 0; index < path.length; index++) if (path[index]!.startsWith('child:')) last = index;
  return last === -1 ? undefined : `${runId} ${path.slice(0, last + 1).join('/')}`;
}
