import {
  attributeChecks,
  attributeDefinition,
  DIALECT_ALIASES,
  GRAPHVIZ_ATTRIBUTES,
  SPEC_HANDLER_DECLARATIONS,
  SUBGRAPH_INPUT_PREFIX,
  SUBGRAPH_VARIABLE_PREFIX,
} from '@attractor/graph';
import type { AttributeOwner } from './pipeline-index.js';
import type { ProjectFacts } from './project-support.js';

/** The scope a key is written in, by its owner. */
export function scopeOf(owner: AttributeOwner): 'graph' | 'node' | 'edge' {
  return owner.kind === 'graph'
    ? 'graph'
    : owner.kind === 'edge' || owner.kind === 'edgeDefaults'
      ? 'edge'
      : 'node';
}

/** The attribute keys each built-in handler type reads (`SPEC_HANDLER_DECLARATIONS`), by type. */
export const BUILT_IN_ATTRIBUTE_KEYS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(SPEC_HANDLER_DECLARATIONS).map(([type, declaration]) => [
    type,
    attributeChecks(declaration.attributes).attributeKeys,
  ]),
);

/** The keys a node of handler type `type` reads: its handler's (a plug-in's or a built-in's). */
export function handlerAttributeKeys(type: string, project: ProjectFacts): readonly string[] {
  return (
    project.handlers.find((handler) => handler.type === type)?.attributeKeys ??
    BUILT_IN_ATTRIBUTE_KEYS.get(type) ??
    []
  );
}

/**
 * Markdown that explains an attribute key written in `scope` (of a node of handler type `type`): what it means, its
 * value type, its default and the spec section (spec Appendix A); for another runner's name, what it is read as; for a
 * plug-in's key, which handler declares it; for Graphviz's presentation keys and unknown keys, what happens to them.
 */
export function describeKey(
  key: string,
  options: {
    readonly scope: 'graph' | 'node' | 'edge';
    readonly type?: string;
    readonly project: ProjectFacts;
  },
): string {
  const alias = DIALECT_ALIASES[key];
  const canonical = alias ?? key;
  const definition = attributeDefinition(canonical);
  const lines: string[] = [];
  if (alias !== undefined) {
    lines.push(
      `\`${key}\` is another runner's name for \`${alias}\`: it is read as \`${alias}\` (lint \`dialect_alias\`).`,
      '',
    );
  }
  if (definition !== undefined) {
    lines.push(
      `**${canonical}** · ${definition.scopes.join(', ')} attribute`,
      '',
      definition.description,
      '',
    );
    lines.push(`- value: ${definition.expected}`, `- default: ${definition.default}`);
    lines.push(
      definition.spec === undefined
        ? '- not in the spec: an addition of this implementation'
        : `- spec ${definition.spec}`,
    );
    if (!definition.scopes.includes(options.scope)) {
      lines.push(
        '',
        `Has no effect on ${options.scope === 'edge' ? 'an edge' : `a ${options.scope}`} (lint \`unknown_attribute\`).`,
      );
    }
    return lines.join('\n');
  }
  const plugin = options.project.handlers.find(
    (handler) =>
      (options.type === undefined || handler.type === options.type) && handler.attributeKeys.includes(key),
  );
  if (plugin !== undefined) {
    lines.push(
      `**${key}** · attribute of the \`${plugin.type}\` handler`,
      '',
      "Declared by a plug-in handler of the project config; lint checks its value against the handler's schema.",
    );
    return lines.join('\n');
  }
  if (key.startsWith(SUBGRAPH_VARIABLE_PREFIX)) {
    return `**${key}** · sub-pipeline variable\n\nSets \`${key.slice(SUBGRAPH_VARIABLE_PREFIX.length)}\` in the context of the pipeline \`graph_ref\` names; \`$goal\`, \`$context.<key>\`, \`$input.<name>\` and \`$item.<as>\` are expanded (spec §9.4).`;
  }
  if (key.startsWith(SUBGRAPH_INPUT_PREFIX) && key.length > SUBGRAPH_INPUT_PREFIX.length) {
    const name = key.slice(SUBGRAPH_INPUT_PREFIX.length);
    return `**${key}** · sub-pipeline input\n\nGives the input \`${name}\` that the pipeline \`graph_ref\` names declares in its \`inputs\` (its \`$input.${name}\`); \`$goal\`, \`$context.<key>\`, \`$input.<name>\` and \`$item.<as>\` are expanded, and the value is read as \`attractor run --input\` reads it (README "Typed data").`;
  }
  if (GRAPHVIZ_ATTRIBUTES.has(key)) {
    return `**${key}** · Graphviz presentation attribute\n\nUsed when the graph is drawn; the run ignores it.`;
  }
  return `**${key}** · unknown attribute\n\nAttractor does not read it; it stays available to custom handlers as a string (lint \`unknown_attribute\`).`;
}
