import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
/**
 * The `parallel` handler (spec §4.8, docs/architecture.md "Parallel fan-out" and "Parallel results").
 */

import type { JsonValue, Outcome } from '@attractor/engine';
import { findJoinNode, type Graph, type GraphEdge, type JoinPolicy } from '@attractor/graph';
import PQueue from 'p-queue';
import { joinSettled, joinStatus, requiredSuccesses } from './join-policy.js';
import { type ParallelBranchResult, readParallelResults } from './parallel-results.js';
import { type BranchRecord, notStarted, runOneBranch } from './run-one-branch.js';
import { isSuccessfulCandidate } from './select-best-candidate.js';

/** Concurrent branches when the node has no `max_parallel` (spec §4.8). */
export const DEFAULT_MAX_PARALLEL = 4;

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
 * (the join status). `continueAt` names the join node, where the engine continues
 * (docs/architecture.md "Parallel fan-out"). Emits the `parallel.*` events of spec §9.6.
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
      // Resuming a fan-out the previous leg failed at (a budget stop, a failed branch): its successful branches stay.
      const kept = keptBranches(runtime.resumedFrom, ids);

      runtime.emit({ type: 'parallel.started', nodeId: node.id, branchCount: total });
      const queue = new PQueue({ concurrency: maxParallel });
      /** Aborts the branches still running once the join policy is decided. */
      const settle = (branch: string) => {
        if (
          !joinController.signal.aborted &&
          joinSettled({ policy, total, succeeded, failed, ...(k === undefined ? {} : { k }) })
        ) {
          joinController.abort(new Error(`join_policy=${policy} decided after branch ${branch}`));
        }
      };
      const runOne = async (edge: GraphEdge, index: number) => {
        const branch = ids[index]!;
        const keptEntry = kept.get(branch);
        if (keptEntry !== undefined) {
          records[index] = { verdict: 'success', entry: keptEntry };
          succeeded += 1;
          runtime.emit({
            type: 'stage.log',
            level: 'info',
            message: `branch ${branch} kept from the run's previous leg (${keptEntry.status}); not run again`,
          });
          settle(branch);
          return;
        }
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
          startNodeId: edge.to,
          branch,
          context: context.clone(),
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
        settle(branch);
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

/**
 * The branches of `resumedFrom` (the outcome of this fan-out's visit a resumed run failed at) that succeeded, by
 * branch id: their `parallel.results` entries, kept instead of running the branch again.
 */
function keptBranches(
  resumedFrom: Outcome | undefined,
  ids: readonly string[],
): Map<string, ParallelBranchResult> {
  const kept = new Map<string, ParallelBranchResult>();
  const previous = readParallelResults(resumedFrom?.contextUpdates?.['parallel.results']);
  for (const entry of previous ?? []) {
    if (ids.includes(entry.branch) && isSuccessfulCandidate(entry.status)) kept.set(entry.branch, entry);
  }
  return kept;
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
