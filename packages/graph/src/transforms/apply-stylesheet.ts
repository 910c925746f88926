import { resolveProperties, type StylesheetDeclaration } from '@attractor/stylesheet';
import { createNode } from '../attribute-schema.js';
import type { GraphAttribute, GraphNode } from '../graph.js';
import { graphStylesheet } from '../lint/model-stylesheet.js';
import { spanInAttribute } from '../lint/source-location.js';
import type { Transform } from './transform.js';

/**
 * Built-in transform (spec §8.5, §9.2): applies the graph's `model_stylesheet` to every node. For each
 * property the winning rule (specificity, then source order, spec §8.3) sets the attribute with
 * origin `stylesheet`, unless the node sets it explicitly (explicit attributes always win; values from
 * `node [...]` default blocks do not). The typed fields (`llmModel`, `llmProvider`,
 * `reasoningEffort`) are re-derived. A stylesheet that does not parse leaves the graph unchanged
 * (lint `stylesheet_syntax` reports it).
 */
export const applyStylesheetTransform: Transform = {
  name: 'apply_stylesheet',
  apply(graph) {
    const parsed = graphStylesheet(graph);
    const stylesheetAttribute = graph.attributes.model_stylesheet;
    if (parsed.kind !== 'parsed' || stylesheetAttribute === undefined) return graph.with({});
    // One attribute per declaration, shared by every node it applies to (attributes are immutable): its span
    // inside the stylesheet value is worked out once, not once per node.
    const applied = new Map<StylesheetDeclaration, GraphAttribute>();
    const attributeOf = (property: string, value: string, declaration: StylesheetDeclaration) => {
      let attribute = applied.get(declaration);
      if (attribute === undefined) {
        const valueSpan = spanInAttribute(graph, stylesheetAttribute, declaration.valueSpan);
        attribute = {
          key: property,
          value,
          kind: 'derived',
          origin: 'stylesheet',
          ...(valueSpan === undefined ? {} : { valueSpan }),
        };
        applied.set(declaration, attribute);
      }
      return attribute;
    };
    const nodes: GraphNode[] = [...graph.nodes.values()].map((node) => {
      const resolved = resolveProperties(parsed.stylesheet, {
        id: node.id,
        shape: node.shape,
        classes: node.classes,
      });
      const attributes: Record<string, GraphAttribute> = { ...node.attributes };
      let changed = false;
      for (const [property, { value, declaration }] of Object.entries(resolved)) {
        if (attributes[property]?.origin === 'explicit') continue;
        attributes[property] = attributeOf(property, value, declaration);
        changed = true;
      }
      return changed ? createNode({ ...node, attributes }, node.prompt) : node;
    });
    return graph.with({ nodes });
  },
};
