import { conditionAllowsOutcome } from '@attractor/condition';
import { conditionsCoverEveryContext } from '../context-coverage.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { edgeCondition, outcomeComparisons, STANDARD_OUTCOMES } from '../edge-conditions.js';
import { nodeSpan } from '../source-location.js';

/**
 * `condition_coverage` (WARNING, docs/architecture.md "Routing dead ends"): every outgoing edge of a node is
 * conditional and none can match `outcome=success` (or `outcome=fail` when the node has no retry
 * target), so that outcome ends the run with "no eligible edge". Nodes whose conditions name custom
 * outcomes (`outcome=process`) are only checked for `fail`. Also when the edges' conditions test context values
 * (`context.mode=fast`, `context.mode=slow`) and some value of them leaves no edge eligible on success (issue 19):
 * nothing guarantees that one matches (complementary pairs such as `x=1` / `x!=1` do cover every case).
 * The `fix:` differs per uncovered outcome: a success takes an unconditional edge, a failed stage never does (spec §3.7).
 */
export const conditionCoverageRule: LintRule = {
  name: 'condition_coverage',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      const edges = graph.outgoing(node.id);
      if (edges.length === 0 || edges.some((edge) => edge.condition === '')) continue;
      const conditions = edges.map(edgeCondition);
      // An unparseable condition is reported by condition_syntax; its coverage is unknown.
      if (conditions.some((condition) => condition === undefined)) continue;
      const parsed = conditions.filter((condition) => condition !== undefined);
      const customOutcomes = parsed.some((condition) =>
        outcomeComparisons(condition).some(
          (clause) => clause.operator === '=' && !STANDARD_OUTCOMES.has(clause.value),
        ),
      );
      const hasRetryTarget = node.retryTarget !== undefined || node.fallbackRetryTarget !== undefined;
      const uncovered = ['success', 'fail'].filter(
        (outcome) =>
          !(outcome === 'success' && customOutcomes) &&
          !(outcome === 'fail' && hasRetryTarget) &&
          !parsed.some((condition) => conditionAllowsOutcome(condition, outcome)),
      );
      if (uncovered.length === 0) {
        if (!customOutcomes && conditionsCoverEveryContext(parsed, 'success') === false) {
          diagnostics.push({
            rule: 'condition_coverage',
            severity: 'warning',
            message: `Every outgoing edge of "${node.id}" is conditional and its conditions test run values that nothing guarantees: when none matches, the run stops at "${node.id}" with no eligible edge.`,
            nodeId: node.id,
            fix: `Add an unconditional fallback edge from "${node.id}", or make the conditions complementary (e.g. context.mode=fast and context.mode!=fast).`,
            span: nodeSpan(node),
          });
        }
        continue;
      }
      const list = uncovered.map((outcome) => `outcome=${outcome}`).join(' or ');
      diagnostics.push({
        rule: 'condition_coverage',
        severity: 'warning',
        message: `Every outgoing edge of "${node.id}" is conditional and none matches ${list}: the run would stop at "${node.id}" with no eligible edge.`,
        nodeId: node.id,
        fix: coverageFix(node.id, uncovered),
        span: nodeSpan(node),
      });
    }
    return diagnostics;
  },
};

/**
 * The `fix:` text for the outcomes no edge of `nodeId` matches. A success is routed by an unconditional edge; a
 * failure only by a matching `outcome=fail` edge, then the node's `retry_target`, then its `fallback_retry_target`
 * (spec §3.7), never by an unconditional edge.
 */
function coverageFix(nodeId: string, uncovered: readonly string[]): string {
  const success = `add an unconditional edge from "${nodeId}" or an edge with condition="outcome=success"`;
  const fail = `add an edge from "${nodeId}" with condition="outcome=fail", or set retry_target (or fallback_retry_target) on "${nodeId}"; a failed stage never takes an unconditional edge`;
  if (!uncovered.includes('fail')) return `For outcome=success, ${success}.`;
  if (!uncovered.includes('success')) return `For outcome=fail, ${fail}.`;
  return `For outcome=success, ${success}. For outcome=fail, ${fail}.`;
}
