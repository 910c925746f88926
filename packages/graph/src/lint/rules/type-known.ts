import { type GraphNode, SHAPE_TO_HANDLER_TYPE } from '../../graph.js';
import {
  type HandlerCapability,
  handlerCapabilities,
  SPEC_HANDLER_TRAITS,
  traitsOfType,
} from '../../handler-traits.js';
import type { LintContext, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { attributeSpan, nodeSpan, valueEdit } from '../source-location.js';

/**
 * What runs a node whose `type` no handler is registered for (the engine's `HandlerRegistry.resolveType`): the
 * handler of its shape when that one is registered and is not codergen, else the default handler, the LLM
 * (codergen) stage.
 */
function fallbackDescription(node: GraphNode, context: LintContext): string {
  const shapeType = (SHAPE_TO_HANDLER_TYPE as Record<string, string | undefined>)[node.shape];
  if (
    shapeType !== undefined &&
    SPEC_HANDLER_TRAITS[shapeType]?.callsModel !== true &&
    context.knownHandlerTypes.has(shapeType)
  ) {
    return `the ${shapeType} handler of its shape (${node.shape})`;
  }
  return 'an LLM (codergen) stage, the default handler';
}

/**
 * Type names other runners and authors use, by the capability of the handler they mean: a suggestion for an unknown
 * type comes from here first, and names every registered type whose handler declares that capability (the built-in
 * `tool` for `shell`, and a registered `deploy` handler that runs commands too), so it does the same kind of work.
 */
const SYNONYMS: Readonly<Record<string, HandlerCapability>> = {
  shell: 'runsCommand',
  command: 'runsCommand',
  script: 'runsCommand',
  bash: 'runsCommand',
  run: 'runsCommand',
  llm: 'callsModel',
  agent: 'callsModel',
  prompt: 'callsModel',
  human: 'asksHuman',
  approval: 'asksHuman',
  gate: 'asksHuman',
  end: 'role:exit',
  finish: 'role:exit',
  begin: 'role:start',
  fan_out: 'fansOut',
  fanout: 'fansOut',
  join: 'joinsBranches',
  fan_in: 'joinsBranches',
  manager: 'supervisesChild',
  workflow: 'runsSubgraph',
  sub_pipeline: 'runsSubgraph',
};

/** Shorter names are too close to other words for an edit-distance guess (`exec` is two edits from `exit`). */
const MIN_TYPO_LENGTH = 6;

function suggestTypes(type: string, context: LintContext): string[] {
  const known = context.knownHandlerTypes as ReadonlySet<string>;
  const capability = SYNONYMS[type.toLowerCase()];
  if (capability !== undefined) {
    return [...known].filter((candidate) =>
      handlerCapabilities(traitsOfType(candidate, context.handlers)).includes(capability),
    );
  }
  const typo = suggestType(type, known);
  return typo === undefined ? [] : [typo];
}

function suggestType(type: string, known: ReadonlySet<string>): string | undefined {
  if (type.length < MIN_TYPO_LENGTH) return undefined;
  const typo = didYouMean(type, known);
  // A typo keeps the namespace of what it meant (`wait.humna`, `parallel.fan_inn`); never cross categories.
  if (
    typo === undefined ||
    typo.split('.')[0]!.slice(0, 3) !== type.toLowerCase().split('.')[0]!.slice(0, 3)
  ) {
    return undefined;
  }
  return typo;
}

/**
 * `type_known` (WARNING, spec §7.2): an explicit node `type` names a handler type the registry knows. The known set
 * comes from `validate`'s `knownHandlerTypes` option (default: the built-ins of §2.8). A node with an unknown type
 * runs as the handler of its shape or, for most nodes, as the default LLM (codergen) stage. The message suggests a
 * type only when it is a known synonym of a capability some registered handler declares (`shell` -> `tool`, which
 * runs commands) or a long name's typo of the
 * same namespace (`subgrahp`, `wait.humna`), never a short word's edit-distance neighbour from another category
 * (`exec` is not `exit`), and the fix never replaces the type blindly.
 */
export const typeKnownRule: LintRule = {
  name: 'type_known',
  apply(graph, context) {
    return [...graph.nodes.values()]
      .filter((node) => node.type !== undefined && !context.knownHandlerTypes.has(node.type))
      .map((node) => {
        const type = node.type!;
        const suggestions = suggestTypes(type, context);
        const quoted = suggestions.map((suggestion) => `"${suggestion}"`);
        const span = attributeSpan(node.attributes.type, nodeSpan(node));
        const fallback = fallbackDescription(node, context);
        const register = `register a handler for "${type}"`;
        return {
          rule: 'type_known',
          severity: 'warning' as const,
          message:
            `Node "${node.id}" has type "${type}", which no registered handler has, so it runs as ${fallback}.` +
            (suggestions.length === 0 ? '' : ` Did you mean ${quoted.join(' or ')}?`),
          nodeId: node.id,
          fix:
            suggestions.length === 0
              ? `Register a handler for "${type}", or use one of: ${[...context.knownHandlerTypes].join(', ')}.`
              : suggestions.length === 1
                ? `If this node should run the ${suggestions[0]} handler, change type to ${quoted[0]}; otherwise ${register}.`
                : `If this node should run one of those handlers, change type to ${quoted.join(' or ')}; otherwise ${register}.`,
          span,
          ...(suggestions.length === 1 && node.attributes.type !== undefined
            ? valueEdit(node.attributes.type, suggestions[0]!)
            : {}),
        };
      });
  },
};
