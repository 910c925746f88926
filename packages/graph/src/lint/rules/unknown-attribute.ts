import {
  ATTRIBUTE_DEFINITIONS,
  type AttributeScope,
  attributeDefinition,
  DIALECT_ALIASES,
  GRAPHVIZ_ATTRIBUTES,
  SUBGRAPH_INPUT_PREFIX,
  SUBGRAPH_VARIABLE_PREFIX,
} from '../../attribute-schema.js';
import { declaresAttribute } from '../../spec-handler-declarations.js';
import { forEachAttribute } from '../attribute-walk.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { keyEdit } from '../source-location.js';

function keysFor(scope: AttributeScope): string[] {
  return Object.values(ATTRIBUTE_DEFINITIONS)
    .filter((definition) => (definition.scopes as readonly string[]).includes(scope))
    .map((definition) => definition.key);
}

const KEYS_BY_SCOPE: Record<AttributeScope, string[]> = {
  graph: keysFor('graph'),
  node: keysFor('node'),
  edge: keysFor('edge'),
};

/** Keys other runners use for one of ours, when it is not a simple typo. */
const SYNONYMS: Readonly<Record<string, string>> = {
  allowed_tools: 'tools',
  model: 'llm_model',
  provider: 'llm_provider',
  command: 'tool_command',
  script: 'tool_command',
};

/** A known key for `key` written without its namespace (`default_choice` → `human.default_choice`). */
function suggestion(key: string, scope: AttributeScope): string | undefined {
  const candidates = KEYS_BY_SCOPE[scope];
  const synonym = Object.hasOwn(SYNONYMS, key) ? SYNONYMS[key] : undefined;
  if (synonym !== undefined && candidates.includes(synonym)) return synonym;
  return candidates.find((candidate) => candidate.endsWith(`.${key}`)) ?? didYouMean(key, candidates);
}

/**
 * `unknown_attribute` (WARNING): a key Attractor does not know (spec Appendix A, handler keys,
 * Graphviz presentation attributes) or a known key written where it has no effect (a `condition` on
 * a node). Suggests the closest known key. Unknown keys stay readable by custom handlers. `var.<name>` and
 * `input.<name>` keys are known on `subgraph` nodes (the child pipeline's variables and inputs).
 */
export const unknownAttributeRule: LintRule = {
  name: 'unknown_attribute',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    forEachAttribute(graph, (attribute, owner) => {
      if (attribute.writtenKey !== undefined || Object.hasOwn(DIALECT_ALIASES, attribute.key)) return;
      if (GRAPHVIZ_ATTRIBUTES.has(attribute.key)) return;
      if (owner.where.nodeId !== undefined && owner.scope === 'node') {
        const node = graph.nodes.get(owner.where.nodeId);
        const declared = node === undefined ? undefined : context.declarationOf(node);
        if (declaresAttribute(declared, attribute.key)) return;
      }
      if (
        (attribute.key.startsWith(SUBGRAPH_VARIABLE_PREFIX) ||
          attribute.key.startsWith(SUBGRAPH_INPUT_PREFIX)) &&
        owner.where.nodeId !== undefined
      ) {
        const node = graph.nodes.get(owner.where.nodeId);
        if (node !== undefined && context.traitsOf(node).runsSubgraph === true) return;
      }
      const definition = attributeDefinition(attribute.key);
      if (definition?.scopes.includes(owner.scope)) return;
      // Graph-level node attributes are read by the engine as graph defaults (tool_hooks, stack.*).
      const base = {
        rule: 'unknown_attribute',
        severity: 'warning' as const,
        ...owner.where,
        span: attribute.keySpan ?? attribute.valueSpan,
      };
      if (definition !== undefined) {
        const scopes = definition.scopes.join(' or ');
        diagnostics.push({
          ...base,
          message: `${owner.description} has "${attribute.key}", which is a ${scopes} attribute and has no effect on ${article(owner.scope)} ${owner.scope}.`,
          fix: `Move ${attribute.key} to the ${scopes} it belongs to, or remove it.`,
        });
        return;
      }
      const closest = suggestion(attribute.key, owner.scope);
      diagnostics.push({
        ...base,
        message: `${owner.description} has unknown attribute "${attribute.key}".${closest ? ` Did you mean "${closest}"?` : ''}`,
        fix: closest
          ? `Rename ${attribute.key} to ${closest}.`
          : `Remove it, or keep it if a custom handler reads "${attribute.key}" (it stays available as a string).`,
        ...(closest ? keyEdit(attribute, closest) : {}),
      });
    });
    return diagnostics;
  },
};

function article(scope: AttributeScope): string {
  return scope === 'edge' ? 'an' : 'a';
}
