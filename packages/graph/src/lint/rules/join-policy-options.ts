import { nodeAttribute } from '../../attribute-schema.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { attributeSpan, nodeSpan } from '../source-location.js';

/**
 * `join_policy_options` (docs/architecture.md "Parallel results"): `join_policy=k_of_n` needs `join_k`
 * (ERROR); `join_k` larger than the number of branches can never be met (WARNING); `join_k` with another
 * policy is ignored (WARNING).
 */
export const joinPolicyOptionsRule: LintRule = {
  name: 'join_policy_options',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    for (const node of graph.nodes.values()) {
      if (!context.traitsOf(node).fansOut) continue;
      const policy = nodeAttribute(node, 'join_policy') ?? 'wait_all';
      const joinK = nodeAttribute(node, 'join_k');
      const branches = graph.outgoing(node.id).length;
      const base = { rule: 'join_policy_options', nodeId: node.id };
      if (policy === 'k_of_n' && node.attributes.join_k === undefined) {
        diagnostics.push({
          ...base,
          severity: 'error',
          message: `Parallel node "${node.id}" has join_policy=k_of_n but no join_k.`,
          fix: `Add join_k=<successes needed> (1..${Math.max(branches, 1)}) to "${node.id}".`,
          span: attributeSpan(node.attributes.join_policy, nodeSpan(node)),
        });
      } else if (policy === 'k_of_n' && joinK !== undefined && joinK > branches) {
        diagnostics.push({
          ...base,
          severity: 'warning',
          message: `Parallel node "${node.id}" needs join_k=${joinK} successes but has only ${branches} branches, so it always fails.`,
          fix: `Lower join_k to at most ${branches}.`,
          span: attributeSpan(node.attributes.join_k),
        });
      } else if (policy !== 'k_of_n' && node.attributes.join_k !== undefined) {
        diagnostics.push({
          ...base,
          severity: 'warning',
          message: `Parallel node "${node.id}" sets join_k, which only join_policy=k_of_n reads (policy is ${policy}).`,
          fix: 'Set join_policy=k_of_n, or remove join_k.',
          span: attributeSpan(node.attributes.join_k),
        });
      }
    }
    return diagnostics;
  },
};
