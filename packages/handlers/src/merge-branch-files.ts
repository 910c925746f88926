/**
 * The fan-in's side of a run workspace (README "Workspaces"): parallel branches work in worktrees of their own, and
 * the fan-in brings their files together by its `join_merge` (`git`, the default: every successful branch merged
 * with git; `pick`: the selected branch's files; `none`: none).
 */
import type { HandlerWorkspace, JsonValue, Outcome } from '@attractor/engine';
import type { ParallelBranchResult } from './parallel-results.js';
import { isSuccessfulCandidate } from './select-best-candidate.js';

/** How a fan-in brings branches' files together (the `join_merge` attribute). */
export type JoinMerge = 'git' | 'pick' | 'none';

/** What {@link mergeBranchFiles} did: a note for the outcome, or the FAIL outcome of a conflict. */
export type BranchFilesMerge =
  | { readonly kind: 'merged'; readonly notes?: string; readonly contextUpdates?: Record<string, JsonValue> }
  | { readonly kind: 'conflict'; readonly outcome: Outcome };

/**
 * Merges the workspace commits of `branches` (those that succeeded and have one, in edge order) into the run's
 * workspace. A conflict is a FAIL outcome naming the paths and branches, not retryable; the conflicted files stay
 * in the workspace (committed with the fan-in's stage commit) for a resolver stage on the fail edge.
 */
export async function mergeBranchFiles(options: {
  readonly workspace: HandlerWorkspace;
  readonly nodeId: string;
  readonly branches: readonly ParallelBranchResult[];
}): Promise<BranchFilesMerge> {
  const mergeable = options.branches.filter(
    (result) => isSuccessfulCandidate(result.status) && result.commit !== undefined,
  );
  if (mergeable.length === 0) return { kind: 'merged' };
  const result = await options.workspace.merge({
    nodeId: options.nodeId,
    branches: mergeable.map((branch) => ({
      id: branch.branch,
      commit: branch.commit!,
      ...(branch.ref === undefined ? {} : { ref: branch.ref }),
    })),
  });
  if (result.kind === 'merged') {
    return {
      kind: 'merged',
      notes: `files of ${result.merged.length === 1 ? 'branch' : 'branches'} ${result.merged.join(', ')} merged with git`,
      contextUpdates: { 'parallel.fan_in.merged_branches': [...result.merged] },
    };
  }
  const branch = `${result.branch.id}${result.branch.ref === undefined ? '' : ` (${result.branch.ref})`}`;
  const earlier =
    result.merged.length === 0
      ? 'the fan-out'
      : `branch${result.merged.length === 1 ? '' : 'es'} ${result.merged.join(', ')}`;
  return {
    kind: 'conflict',
    outcome: {
      status: 'fail',
      retryable: false,
      failureReason: `merge conflict at fan-in "${options.nodeId}": branch ${branch} conflicts with ${earlier} in ${result.paths.join(', ')}${result.notMerged.length === 0 ? '' : ` (not merged: ${result.notMerged.join(', ')})`}; the conflicted files, with conflict markers, are in the workspace for a resolver stage (an edge on outcome=fail)`,
      contextUpdates: {
        'parallel.fan_in.conflict_paths': [...result.paths],
        'parallel.fan_in.conflict_branch': result.branch.id,
        'parallel.fan_in.merged_branches': [...result.merged],
      },
    },
  };
}
