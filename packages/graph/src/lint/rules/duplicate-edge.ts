import type { Diagnostic, LintRule } from '../diagnostic.js';

/**
 * `duplicate_edge` (WARNING, spec §3.3): two edges with the same ends, condition and label; the
 * second can never be selected instead of the first, so one is a leftover.
 */
export const duplicateEdgeRule: LintRule = {
  name: 'duplicate_edge',
  apply(graph) {
    const seen = new Map<string, number>();
    const diagnostics: Diagnostic[] = [];
    for (const edge of graph.edges) {
      // Each part prefixed with its length: exact like JSON.stringify of the four, at a fraction of its cost.
      const label = edge.label.trim();
      const key = `${edge.from.length}:${edge.from}${edge.to.length}:${edge.to}${edge.condition.length}:${edge.condition}${label}`;
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, edge.index);
        continue;
      }
      const line = graph.edges[first]?.span?.start.line;
      diagnostics.push({
        rule: 'duplicate_edge',
        severity: 'warning',
        message: `Edge ${edge.from} -> ${edge.to} repeats an earlier edge${line ? ` (line ${line})` : ''} with the same condition and label.`,
        edge: { from: edge.from, to: edge.to },
        fix: 'Remove one of the two edges.',
        span: edge.span,
      });
    }
    return diagnostics;
  },
};
