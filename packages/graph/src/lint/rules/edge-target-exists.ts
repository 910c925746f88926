import type { SourceSpan } from '@attractor/dot';
import type { GraphEdge } from '../../graph.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { phantomNodes } from '../phantom-nodes.js';
import { replacing } from '../source-location.js';

/**
 * `edge_target_exists` (ERROR, spec §7.2): both ends of every edge are nodes of the graph. Reports an
 * edge end that is no node at all (a graph produced or rewritten by a transform), and an end that DOT
 * created only because the edge mentions it while its id is a near-miss of a declared node (a typo
 * such as `implement -> implment`, see `phantomNodes`). `validate` drops the other built-in rules'
 * findings about such a phantom node, so this error is the one message the user sees for it.
 */
export const edgeTargetExistsRule: LintRule = {
  name: 'edge_target_exists',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    const phantoms = phantomNodes(graph);
    for (const edge of graph.edges) {
      const ends = edge.from === edge.to ? [edge.from] : [edge.from, edge.to];
      for (const end of ends) {
        const phantomOf = phantoms.get(end);
        if (phantomOf !== undefined) {
          diagnostics.push({
            rule: 'edge_target_exists',
            severity: 'error',
            message: `Edge ${edge.from === end ? 'source' : 'target'} "${end}" is not a declared node. Did you mean "${phantomOf}"?`,
            edge: { from: edge.from, to: edge.to },
            fix: `Change "${end}" to "${phantomOf}" in the edge, or declare "${end}" with its own node statement.`,
            ...replacing(spanOfEnd(edge, end).span, phantomOf),
          });
          continue;
        }
        if (graph.node(end) !== undefined) continue;
        const suggestion = didYouMean(end, graph.nodes.keys());
        diagnostics.push({
          rule: 'edge_target_exists',
          severity: 'error',
          message: `Edge ${edge.from} -> ${edge.to} refers to node "${end}", which does not exist.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
          edge: { from: edge.from, to: edge.to },
          fix: suggestion
            ? `Change "${end}" to "${suggestion}".`
            : `Declare node "${end}" or remove the edge.`,
          ...replacing(spanOfEnd(edge, end).span, suggestion),
        });
      }
    }
    return diagnostics;
  },
};

/**
 * The span of the id `end` in the edge: an edge's span runs from the start of its source id to the end of its
 * target id, and an id is a bare identifier on one line, so the id's own span follows from its length.
 */
function spanOfEnd(edge: GraphEdge, end: string): { span?: SourceSpan } {
  const span = edge.span;
  if (span === undefined) return {};
  const { length } = end;
  const file = span.filename === undefined ? {} : { filename: span.filename };
  if (end === edge.to) {
    const { offset, line, column } = span.end;
    return {
      span: { start: { offset: offset - length, line, column: column - length }, end: span.end, ...file },
    };
  }
  const { offset, line, column } = span.start;
  return {
    span: { start: span.start, end: { offset: offset + length, line, column: column + length }, ...file },
  };
}
