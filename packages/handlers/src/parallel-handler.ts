import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
/**
 * The `parallel` handler (spec §4.8, DESIGN.md "Parallel fan-out" and "Parallel results").
 */

import type { BranchResult, Context, HandlerRuntime, JsonValue, Outcome } from '@attractor/engine';
import { formatDuration, isSuccessStatus } from '@attractor/engine';
import { findJoinNode, type Graph, type GraphEdge, type JoinPolicy } from '@attractor/graph';
import PQueue from 'p-queue';
import { joinSettled, joinStatus, requiredSuccesses } from './join-policy.js';
import { BRANCH_OUTPUT_INLINE_MAX_CHARS, type ParallelBranchResult } from './parallel-results.js';
import { readStageOutput } from './stage-files.js';

/** Concurrent branches when the node has no `max_parallel` (spec §4.8). */
export const DEFAULT_MAX_PARALLEL = 4;

/** Context keys left out of a branch's `context_updates`: engine bookkeeping and nested parallel state. */
function isPrivateKey(key: string): boolean {
  return (
    key === 'current_node' ||
    key === 'outcome' ||
    key === 'preferred_label' ||
    key.startsWith('internal.') ||
    key.startsWith('parallel.')
  );
}

/** Unique branch ids from edge targets (letters, digits, `.`, `_`, `-`), suffixed `-2`, `-3` on repeats. */
function branchIds(edges: readonly GraphEdge[]): string[] {
  const seen = new Map<string, number>();
  return edges.map((edge) => {
    const base = edge.to.replace(/[^A-Za-z0-9._-]/g, '_') || 'branch';
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}-${count}`;
  });
}

type BranchVerdict = 'success' | 'fail' | 'cancelled';

interface BranchRecord {
  readonly entry: ParallelBranchResult;
  readonly verdict: BranchVerdict;
  readonly result?: BranchResult;
}

/**
 * Creates the `parallel` handler (spec §4.8).
 *
 * Each outgoing edge is a branch: `runtime.runBranch` walks it from the edge target on a `context.clone()` until
 * the join (the first `parallel.fan_in` node not closing a nested block), a terminal node or a dead end. At most
 * `max_parallel` (default 4) branches run at once (p-queue). `join_policy`:
 * - `wait_all` (default): all succeed → success, some fail → partial_success, all fail → fail;
 * - `first_success`: the first success wins and the other branches are aborted through their signal;
 * - `k_of_n`: `join_k` successes needed; `quorum`: a strict majority. Both abort the rest once decided.
 * `branch_timeout` aborts a branch that runs longer (the branch fails with `branch_timeout after <d>`).
 *
 * The outcome's context updates hold `parallel.results` (edge order: `{ branch, status, notes, failure_reason,
 * last_response, context_updates }`), `parallel.success_count`, `parallel.failure_count` and `parallel.outcome`
 * (the join status). `continueAt` names the join node, where the engine continues (DESIGN.md). Emits the
 * `parallel.*` events of spec §9.6.
 */
export function createParallelHandler(): DeclaredHandler {
  return defineHandler({
    type: 'parallel',
    ...SPEC_HANDLER_DECLARATIONS.parallel,
    async execute({ node, attributes, context, graph, runtime }) {
      const edges = graph.outgoing(node.id);
      const expectedJoin = findJoinNode(graph, node.id);
      if (edges.length === 0) {
        return {
          status: 'fail',
          failureReason: `Parallel node "${node.id}" has no outgoing edges: each outgoing edge is a branch`,
          retryable: false,
        };
      }
      const policy: JoinPolicy = attributes.join_policy ?? 'wait_all';
      const k = attributes.join_k;
      if (policy === 'k_of_n' && k === undefined) {
        return {
          status: 'fail',
          failureReason: `Parallel node "${node.id}" has join_policy=k_of_n but no join_k; add join_k=<successes needed>`,
          retryable: false,
        };
      }
      const maxParallel = attributes.max_parallel ?? DEFAULT_MAX_PARALLEL;
      const branchTimeoutMs = attributes.branch_timeout;
      const ids = branchIds(edges);
      const total = edges.length;
      const startedMs = runtime.clock.now();
      const joinController = new AbortController();
      const records: (BranchRecord | undefined)[] = new Array(total);
      let succeeded = 0;
      let failed = 0;

      runtime.emit({ type: 'parallel.started', nodeId: node.id, branchCount: total });
      const queue = new PQueue({ concurrency: maxParallel });
      const runOne = async (edge: GraphEdge, index: number) => {
        const branch = ids[index]!;
        if (joinController.signal.aborted || runtime.abortSignal.aborted) {
          records[index] = notStarted(
            branch,
            joinController.signal.aborted ? joinReason(joinController) : 'cancelled',
          );
          return;
        }
        runtime.emit({ type: 'parallel.branch.started', nodeId: node.id, branch, index });
        const branchStartedMs = runtime.clock.now();
        const record = await runOneBranch({
          edge,
          branch,
          context,
          graph,
          runtime,
          joinSignal: joinController.signal,
          ...(expectedJoin === undefined ? {} : { joinNodeId: expectedJoin }),
          ...(branchTimeoutMs === undefined ? {} : { branchTimeoutMs }),
        });
        records[index] = record;
        if (record.verdict === 'success') succeeded += 1;
        else if (record.verdict === 'fail') failed += 1;
        runtime.emit({
          type: 'parallel.branch.completed',
          nodeId: node.id,
          branch,
          index,
          durationMs: runtime.clock.now() - branchStartedMs,
          success: record.verdict === 'success',
          status: record.entry.status,
        });
        if (
          !joinController.signal.aborted &&
          joinSettled({ policy, total, succeeded, failed, ...(k === undefined ? {} : { k }) })
        ) {
          joinController.abort(new Error(`join_policy=${policy} decided after branch ${branch}`));
        }
      };
      await Promise.all(edges.map((edge, index) => queue.add(() => runOne(edge, index))));

      const entries = records.map(
        (record, index) => record?.entry ?? notStarted(ids[index]!, 'cancelled').entry,
      );
      const status = joinStatus({ policy, total, succeeded, failed, ...(k === undefined ? {} : { k }) });
      runtime.emit({
        type: 'parallel.completed',
        nodeId: node.id,
        durationMs: runtime.clock.now() - startedMs,
        successCount: succeeded,
        failureCount: failed,
      });
      const joinNodeId = findJoin(records, graph, expectedJoin);
      const needed = requiredSuccesses({ policy, total, ...(k === undefined ? {} : { k }) });
      const contextUpdates: Record<string, JsonValue> = {
        'parallel.results': entries as unknown as JsonValue,
        'parallel.success_count': succeeded,
        'parallel.failure_count': failed,
        'parallel.outcome': status,
      };
      const summary = `${succeeded} of ${total} branches succeeded, ${failed} failed (join_policy=${policy}, needed ${needed})`;
      const failures = entries
        .filter((entry) => entry.status === 'fail')
        .map((entry) => `${entry.branch}: ${entry.failure_reason || 'failed'}`);
      const outcome: Outcome = {
        status,
        notes: joinNodeId === undefined ? summary : `${summary}; continuing at join "${joinNodeId}"`,
        contextUpdates,
        ...(status === 'fail'
          ? { failureReason: `${summary}${failures.length === 0 ? '' : `: ${failures.join('; ')}`}` }
          : {}),
        ...(joinNodeId === undefined ? {} : { continueAt: joinNodeId }),
      };
      if (joinNodeId === undefined && status !== 'fail') {
        return {
          ...outcome,
          status: 'fail',
          failureReason: `Parallel node "${node.id}": no branch reached a fan-in node (shape=tripleoctagon) or the exit, so there is nowhere to join; route the branches into a parallel.fan_in node`,
          retryable: false,
        };
      }
      return outcome;
    },
  });
}

interface RunOneBranchOptions {
  readonly edge: GraphEdge;
  readonly branch: string;
  readonly context: Context;
  readonly graph: Graph;
  readonly runtime: HandlerRuntime;
  readonly joinSignal: AbortSignal;
  /** The engine's join of this block (`findJoinNode`): a fan-in, or the ordinary node where all branches meet. */
  readonly joinNodeId?: string;
  readonly branchTimeoutMs?: number;
}

async function runOneBranch(options: RunOneBranchOptions): Promise<BranchRecord> {
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
      startNodeId: options.edge.to,
      context: options.context.clone(),
      stopBefore: (node) => node.id === options.joinNodeId,
      abortSignal: AbortSignal.any([options.joinSignal, timeoutController.signal]),
      branchId: branch,
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
  const entry = await withFullOutput(record.entry, result, runtime);
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
 * The entry with the branch's full output (DESIGN.md "Parallel results"): inline up to
 * `BRANCH_OUTPUT_INLINE_MAX_CHARS`, else as an artifact whose id is in `output_artifact`.
 */
async function withFullOutput(
  entry: ParallelBranchResult,
  result: BranchResult,
  runtime: HandlerRuntime,
): Promise<ParallelBranchResult> {
  const output = await readStageOutput(runtime.stage, `branches/${entry.branch}/${result.lastNodeId}`);
  if (output === undefined) return entry;
  if (output.length <= BRANCH_OUTPUT_INLINE_MAX_CHARS) return { ...entry, output };
  const artifact = await runtime.artifacts.store({
    id: `parallel.${entry.branch}.output`,
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

function entryOf(
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

function notStarted(branch: string, reason: string): BranchRecord {
  return { verdict: 'cancelled', entry: entryOf(branch, 'cancelled', 'not started', reason, '', {}) };
}

function joinReason(controller: AbortController): string {
  const reason: unknown = controller.signal.reason;
  return reason instanceof Error ? reason.message : 'cancelled by the join policy';
}

/**
 * The join: the block's join (`findJoinNode` of `@attractor/graph`: its fan-in, or the first node every branch
 * reaches); without one, the exit node a branch stopped at (the parent walk runs it once, goal gates included).
 */
function findJoin(
  records: readonly (BranchRecord | undefined)[],
  graph: Graph,
  expectedJoin: string | undefined,
): string | undefined {
  if (expectedJoin !== undefined) return expectedJoin;
  const exits = new Set(graph.exitNodes.map((node) => node.id));
  return (
    records.map((record) => record?.result?.stoppedAt).find((id) => id !== undefined && exits.has(id)) ??
    records.map((record) => record?.result?.lastNodeId).find((id) => id !== undefined && exits.has(id))
  );
}
