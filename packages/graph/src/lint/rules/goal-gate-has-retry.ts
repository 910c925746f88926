import type { LintRule } from '../diagnostic.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `goal_gate_has_retry` (WARNING, spec §7.2, §3.4): a goal gate has somewhere to jump when it is
 * unsatisfied at exit: its own or the graph's `retry_target` / `fallback_retry_target`.
 */
export const goalGateHasRetryRule: LintRule = {
  name: 'goal_gate_has_retry',
  apply(graph) {
    if (graph.settings.retryTarget !== undefined || graph.settings.fallbackRetryTarget !== undefined)
      return [];
    return [...graph.nodes.values()]
      .filter(
        (node) => node.goalGate && node.retryTarget === undefined && node.fallbackRetryTarget === undefined,
      )
      .map((node) => ({
        rule: 'goal_gate_has_retry',
        severity: 'warning',
        message: `Goal gate "${node.id}" has no retry_target or fallback_retry_target: if it is unsatisfied at exit, the run fails.`,
        nodeId: node.id,
        fix: `Add retry_target="<node to re-run>" to "${node.id}" (or a graph-level retry_target).`,
        span: attributeSpan(node.attributes.goal_gate, nodeSpan(node)),
      }));
  },
};
