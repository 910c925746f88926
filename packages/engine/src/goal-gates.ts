/**
 * Goal gates and retry targets, spec §3.4 and §3.7, docs/architecture.md "Goal gates".
 */
import type { Graph, GraphNode } from '@attractor/graph';
import { isSuccessStatus, type Outcome } from './outcome.js';

/** Options of {@link findUnsatisfiedGoalGate}. */
export interface FindUnsatisfiedGoalGateOptions {
  readonly graph: Graph;
  /** The latest outcome per node id. */
  readonly nodeOutcomes: Readonly<Record<string, Outcome>>;
}

/**
 * The first goal-gate node (in graph declaration order) whose latest outcome is not a success, or undefined when
 * every gate that ran is satisfied (spec §3.4). A gate that never ran is not checked. `success`,
 * `partial_success` and custom outcome words count as success.
 */
export function findUnsatisfiedGoalGate(options: FindUnsatisfiedGoalGateOptions): GraphNode | undefined {
  for (const node of options.graph.nodes.values()) {
    if (!node.goalGate) continue;
    const outcome = options.nodeOutcomes[node.id];
    if (outcome !== undefined && !isSuccessStatus(outcome.status)) return node;
  }
  return undefined;
}

/** Where a retry target came from. */
export type RetryTargetSource = 'node' | 'node_fallback' | 'graph' | 'graph_fallback';

/** A resolved retry target. */
export interface RetryTarget {
  readonly nodeId: string;
  readonly source: RetryTargetSource;
}

/** Options of {@link resolveRetryTarget}. */
export interface ResolveRetryTargetOptions {
  /** The failing node or unsatisfied goal gate. */
  readonly node: GraphNode;
  readonly graph: Graph;
  /** Also consider the graph-level targets (goal gates: yes, spec §3.4; failure routing: no, spec §3.7). Default: true. */
  readonly includeGraph?: boolean;
  /**
   * Whether fallback targets may be used. docs/architecture.md "Loop guards": a `fallback_retry_target` is
   * taken at most once per failing node per run, so the engine passes false once it has taken this node's
   * fallback. Default: true.
   */
  readonly allowFallback?: boolean;
}

/**
 * The retry target chain of spec §3.4: node `retry_target` → node `fallback_retry_target` → graph `retry_target` →
 * graph `fallback_retry_target`. Targets naming a node that does not exist are skipped (that is what the fallback
 * is for). Returns undefined when none applies.
 */
export function resolveRetryTarget(options: ResolveRetryTargetOptions): RetryTarget | undefined {
  const { node, graph } = options;
  const allowFallback = options.allowFallback ?? true;
  const candidates: [string | undefined, RetryTargetSource, boolean][] = [
    [node.retryTarget, 'node', true],
    [node.fallbackRetryTarget, 'node_fallback', allowFallback],
  ];
  if (options.includeGraph ?? true) {
    candidates.push(
      [graph.settings.retryTarget, 'graph', true],
      [graph.settings.fallbackRetryTarget, 'graph_fallback', allowFallback],
    );
  }
  for (const [target, source, allowed] of candidates) {
    if (allowed && target !== undefined && target !== '' && graph.nodes.has(target))
      return { nodeId: target, source };
  }
  return undefined;
}
