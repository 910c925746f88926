import type { GraphAttribute } from '../../graph.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, valueEdit } from '../source-location.js';

/** `retry_target_exists` (WARNING, spec §7.2): `retry_target` / `fallback_retry_target` name existing nodes. */
export const retryTargetExistsRule: LintRule = {
  name: 'retry_target_exists',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    const check = (attribute: GraphAttribute | undefined, owner: string, nodeId?: string) => {
      if (attribute === undefined || attribute.value === '' || graph.node(attribute.value)) return;
      const suggestion = didYouMean(attribute.value, graph.nodes.keys());
      diagnostics.push({
        rule: 'retry_target_exists',
        severity: 'warning',
        message: `${owner} has ${attribute.key}="${attribute.value}", but there is no node "${attribute.value}".${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
        ...(nodeId === undefined ? {} : { nodeId }),
        fix: suggestion
          ? `Change it to "${suggestion}".`
          : `Name an existing node, or remove ${attribute.key}.`,
        ...(suggestion ? valueEdit(attribute, suggestion) : {}),
        span: attributeSpan(attribute),
      });
    };
    for (const key of ['retry_target', 'fallback_retry_target'] as const) {
      check(graph.attributes[key], `Graph "${graph.id}"`);
      for (const node of graph.nodes.values()) check(node.attributes[key], `Node "${node.id}"`, node.id);
    }
    return diagnostics;
  },
};
