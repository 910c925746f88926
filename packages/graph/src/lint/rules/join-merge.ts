import { findJoinNode } from '../../find-join-node.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { reachableFrom } from '../graph-traversal.js';
import { isForeachNode } from '../is-foreach-node.js';
import { nodeSpan } from '../source-location.js';

/**
 * `join_merge` (WARNING, README "Workspaces"): a parallel block whose branches run stages that may change files
 * (LLM, agent, tool, sub-pipeline) closes at a fan-in that declares how their files come together. In a git workspace
 * each branch works in a worktree of its own, and the fan-in merges them by `join_merge` (`git` when unset); saying
 * so (or `pick`, or `none`) makes the choice visible where two branches may edit the same lines. The items of a
 * foreach (README "Typed data") are merged the same way, and the diagnostic says items. A graph that runs in place
 * (`workspace="in-place"`) is not checked: its branches share the one directory and the fan-in merges no files.
 */
export const joinMergeRule: LintRule = {
  name: 'join_merge',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    if (graph.attributes.workspace?.value.trim() === 'in-place') return diagnostics;
    for (const node of graph.nodes.values()) {
      if (!context.traitsOf(node).fansOut) continue;
      const joinId = findJoinNode(graph, node.id, { traitsOf: (other) => context.traitsOf(other) });
      const join = joinId === undefined ? undefined : graph.node(joinId);
      if (join === undefined || !context.traitsOf(join).joinsBranches) continue;
      if (join.attributes.join_merge !== undefined) continue;
      const changing = new Set<string>();
      for (const edge of graph.outgoing(node.id)) {
        for (const id of reachableFrom(graph, edge.to, { avoid: new Set([join.id, node.id]) })) {
          const branchNode = graph.node(id);
          if (branchNode === undefined) continue;
          const traits = context.traitsOf(branchNode);
          if (traits.callsModel || traits.runsCommand || traits.runsSubgraph || traits.supervisesChild)
            changing.add(id);
        }
      }
      if (changing.size === 0) continue;
      const named = [...changing].slice(0, 5).map((id) => `"${id}"`);
      const [branches, branch, fanOut] = isForeachNode(node, context)
        ? ['items', 'item', 'foreach node']
        : ['branches', 'branch', 'parallel node'];
      diagnostics.push({
        rule: 'join_merge',
        severity: 'warning',
        message: `The ${branches} of ${fanOut} "${node.id}" run stages that may change files (${named.join(', ')}${changing.size > 5 ? ', …' : ''}), and fan-in "${join.id}" does not say how their files come together: in a git workspace each ${branch} works in a worktree of its own and the fan-in merges them with git.`,
        nodeId: join.id,
        fix: `Add join_merge="git" (merge every successful ${branch}; a conflict fails the fan-in), join_merge="pick" (the selected ${branch}'s files) or join_merge="none" to "${join.id}".`,
        span: nodeSpan(join),
      });
    }
    return diagnostics;
  },
};
