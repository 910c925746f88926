/**
 * One branch of a fan-out walked to its join and judged (docs/architecture.md "Parallel results"): shared by the
 * `parallel` handler (one per outgoing edge) and the `foreach` handler (one per item).
 */
import type { BranchResult, Context, HandlerRuntime, JsonValue } from '@attractor/engine';
import { formatDuration, isSuccessStatus, LEGACY_AGENT_COST_KEY } from '@attractor/engine';
import { BRANCH_OUTPUT_INLINE_MAX_CHARS, type ParallelBranchResult } from './parallel-results.js';
import { readStageOutput } from './stage-files.js';

/**
 * Context keys left out of a branch's `context_updates`: engine bookkeeping, nested parallel state and the run's
 * usage totals (`usage.total.*`: the engine keeps them for the whole run, every branch counted).
 */
function isPrivateKey(key: string): boolean {
  return (
    key === 'current_node' ||
    key === 'outcome' ||
    key === 'preferred_label' ||
    key.startsWith('internal.') ||
    key.startsWith('parallel.') ||
    key.startsWith('usage.total.') ||
    key === LEGACY_AGENT_COST_KEY
  );
}

/** How a branch ended, for the join policy. */
export type BranchVerdict = 'success' | 'fail' | 'cancelled';

/** One branch's verdict, its `parallel.results` entry and, when it ran, its walk's result. */
export interface BranchRecord {
  readonly entry: ParallelBranchResult;
  readonly verdict: BranchVerdict;
  readonly result?: BranchResult;
}

/** Options of {@link runOneBranch}. */
export interface RunOneBranchOptions {
  /** The branch's first node (a fan-out edge's target, a foreach body's first node). */
  readonly startNodeId: string;
  readonly branch: string;
  /** Where its stages go: `branches` (parallel, the default) or `items` (foreach); see `RunBranchOptions.folder`. */
  readonly folder?: 'branches' | 'items';
  /** The branch's own context (the caller's clone): the branch mutates it. */
  readonly context: Context;
  readonly runtime: HandlerRuntime;
  readonly joinSignal: AbortSignal;
  /** The engine's join of this block (`findJoinNode`): a fan-in, or the ordinary node where all branches meet. */
  readonly joinNodeId?: string;
  readonly branchTimeoutMs?: number;
}

/**
 * Walks one branch with `runtime.runBranch` until the join (`joinNodeId`), under `branchTimeoutMs`, and judges it:
 * its `parallel.results` entry (private keys left out of `context_updates`, its full output, its workspace commit)
 * and whether it succeeded. Never rejects.
 */
export async function runOneBranch(options: RunOneBranchOptions): Promise<BranchRecord> {
  const { runtime, branch } = options;
  const timeoutController = new AbortController();
  const timerController = new AbortController();
  let timedOut = false;
  if (options.branchTimeoutMs !== undefined) {
    const ms = options.branchTimeoutMs;
    runtime.clock.sleep(ms, timerController.signal).then(
      () => {
        timedOut = true;
        timeoutController.abort(new Error(`branch_timeout after ${formatDuration(ms)}`));
      },
      () => undefined,
    );
  }
  let result: BranchResult;
  try {
    result = await runtime.runBranch({
      startNodeId: options.startNodeId,
      context: options.context,
      stopBefore: (node) => node.id === options.joinNodeId,
      abortSignal: AbortSignal.any([options.joinSignal, timeoutController.signal]),
      branchId: branch,
      ...(options.folder === undefined ? {} : { folder: options.folder }),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { verdict: 'fail', entry: entryOf(branch, 'fail', '', reason, '', {}) };
  } finally {
    timerController.abort();
  }
  const updates = Object.fromEntries(
    Object.entries(result.contextUpdates).filter(([key]) => !isPrivateKey(key)),
  );
  const record = judgeBranch(branch, result, updates, timedOut);
  const entry = await withFullOutput(record.entry, result, runtime, options.folder ?? 'branches');
  return {
    ...record,
    entry:
      result.workspace === undefined
        ? entry
        : {
            ...entry,
            commit: result.workspace.commit,
            ...(result.workspace.ref === undefined ? {} : { ref: result.workspace.ref }),
          },
  };
}

/**
 * The entry with the branch's full output (docs/architecture.md "Parallel results"): inline up to
 * `BRANCH_OUTPUT_INLINE_MAX_CHARS`, else as an artifact whose id is in `output_artifact`.
 */
async function withFullOutput(
  entry: ParallelBranchResult,
  result: BranchResult,
  runtime: HandlerRuntime,
  folder: string,
): Promise<ParallelBranchResult> {
  const output = await readStageOutput(runtime.stage, `${folder}/${entry.branch}/${result.lastNodeId}`);
  if (output === undefined) return entry;
  if (output.length <= BRANCH_OUTPUT_INLINE_MAX_CHARS) return { ...entry, output };
  const artifact = await runtime.artifacts.store({
    id: `${folder === 'branches' ? 'parallel' : 'foreach'}.${entry.branch}.output`,
    name: `full output of branch ${entry.branch}`,
    data: output,
  });
  return { ...entry, output_artifact: artifact.id };
}

function judgeBranch(
  branch: string,
  result: BranchResult,
  updates: Record<string, JsonValue>,
  timedOut: boolean,
): BranchRecord {
  const last = result.outcome;
  const lastResponse = result.lastResponse ?? '';
  if (result.status === 'cancelled') {
    if (timedOut) {
      const reason = result.failureReason ?? 'branch_timeout';
      return {
        verdict: 'fail',
        result,
        entry: entryOf(branch, 'fail', last.notes ?? '', reason, lastResponse, updates),
      };
    }
    return {
      verdict: 'cancelled',
      result,
      entry: entryOf(
        branch,
        'cancelled',
        last.notes ?? '',
        result.failureReason ?? 'cancelled',
        lastResponse,
        updates,
      ),
    };
  }
  if (result.status === 'fail' || !isSuccessStatus(last.status)) {
    const reason = result.failureReason ?? last.failureReason ?? `ended with outcome ${last.status}`;
    return {
      verdict: 'fail',
      result,
      entry: entryOf(branch, 'fail', last.notes ?? '', reason, lastResponse, updates),
    };
  }
  return {
    verdict: 'success',
    result,
    entry: entryOf(branch, last.status, last.notes ?? '', '', lastResponse, updates),
  };
}

/** A `parallel.results` entry. */
export function entryOf(
  branch: string,
  status: string,
  notes: string,
  failureReason: string,
  lastResponse: string,
  contextUpdates: Record<string, JsonValue>,
): ParallelBranchResult {
  return {
    branch,
    status,
    notes,
    failure_reason: failureReason,
    last_response: lastResponse,
    output: '',
    context_updates: contextUpdates,
  };
}

/** The record of a branch that never started (the join policy decided, or the run was cancelled). */
export function notStarted(branch: string, reason: string): BranchRecord {
  return { verdict: 'cancelled', entry: entryOf(branch, 'cancelled', 'not started', reason, '', {}) };
}
