import { FIDELITY_MODES, parseAttributeValue } from '../../attribute-schema.js';
import type { GraphAttribute } from '../../graph.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, valueEdit } from '../source-location.js';

/**
 * `fidelity_valid` (WARNING, spec §7.2, §5.4): node and edge `fidelity` and graph `default_fidelity`
 * are fidelity modes. An invalid value is ignored at run time (the next level of §5.4 applies).
 */
export const fidelityValidRule: LintRule = {
  name: 'fidelity_valid',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    const seen = new Set<number>();
    const check = (
      attribute: GraphAttribute | undefined,
      owner: string,
      where: Pick<Diagnostic, 'nodeId' | 'edge'>,
    ) => {
      if (attribute === undefined || parseAttributeValue('fidelity', attribute.value).ok) return;
      const offset = attribute.valueSpan?.start.offset;
      if (offset !== undefined) {
        if (seen.has(offset)) return;
        seen.add(offset);
      }
      const suggestion = didYouMean(attribute.value, FIDELITY_MODES);
      diagnostics.push({
        rule: 'fidelity_valid',
        severity: 'warning',
        message: `${owner} has ${attribute.writtenKey ?? attribute.key}="${attribute.value}", which is not a fidelity mode.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
        ...where,
        fix: `Use one of ${FIDELITY_MODES.join(', ')}.`,
        ...(suggestion ? valueEdit(attribute, suggestion) : {}),
        span: attributeSpan(attribute),
      });
    };
    check(graph.attributes.default_fidelity, `Graph "${graph.id}"`, {});
    for (const node of graph.nodes.values())
      check(node.attributes.fidelity, `Node "${node.id}"`, { nodeId: node.id });
    for (const edge of graph.edges) {
      check(edge.attributes.fidelity, `Edge ${edge.from} -> ${edge.to}`, {
        edge: { from: edge.from, to: edge.to },
      });
    }
    return diagnostics;
  },
};
