import { type HandlerTraits, SPEC_HANDLER_TRAITS } from '../../handler-traits.js';
import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, HandlerLintInfo, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { spanInAttribute } from '../source-location.js';

/** A namespace of context keys that only one handler type writes (its declared `contextKeys`). */
interface OwnedNamespace {
  readonly prefix: string;
  readonly handler: string;
  readonly keys: readonly string[];
}

/** The namespaces handlers declare: the registered ones' declarations over the spec's built-in types. */
function ownedNamespaces(handlers: ReadonlyMap<string, HandlerLintInfo>): OwnedNamespace[] {
  const traits = new Map<string, HandlerTraits>(Object.entries(SPEC_HANDLER_TRAITS));
  for (const [type, declared] of handlers) traits.set(type, declared);
  return [...traits].flatMap(([handler, { contextKeys }]) =>
    contextKeys === undefined ? [] : [{ handler, prefix: contextKeys.prefix, keys: contextKeys.keys }],
  );
}

/**
 * `context_key_unset` (WARNING, issue 19): a condition reads a key of a namespace that only one handler declares
 * (`contextKeys`) and writes, and no node of the graph can write it: `context.tool.last_lines` (the tool handler sets `tool.output`,
 * `tool.exit_code`, `tool.stderr` and `tool.last_line`), or `context.tool.output` in a graph without a tool node.
 * The key stays empty, so the condition compares `""`. Graphs with sub-pipelines, manager loops or parallel
 * branches are only checked for misspelt keys (a child may set the others).
 */
export const contextKeyUnsetRule: LintRule = {
  name: 'context_key_unset',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    const namespaces = ownedNamespaces(context.handlers);
    if (namespaces.length === 0) return diagnostics;
    const types = new Set([...graph.nodes.values()].map((node) => graph.handlerType(node)));
    // A child pipeline or a parallel branch may set any key and hand it back to this graph.
    const imports = [...graph.nodes.values()].some((node) => {
      const traits = context.traitsOf(node);
      return traits.fansOut === true || traits.supervisesChild === true || traits.runsSubgraph === true;
    });
    for (const { attribute, where, owner } of conditionAttributes(graph)) {
      const { ast } = parseConditionOnce(attribute.value);
      if (ast === undefined) continue;
      for (const clause of ast.clauses) {
        const key = clause.key.path.replace(/^context\./, '');
        const namespace = namespaces.find((entry) => key.startsWith(entry.prefix));
        if (namespace === undefined) continue;
        const name = key.slice(namespace.prefix.length);
        const known = namespace.keys.includes(name);
        if (known && (types.has(namespace.handler) || imports)) continue;
        const meant = known ? undefined : didYouMean(name, namespace.keys);
        const message = known
          ? `${owner} reads ${clause.key.path}, which only a ${namespace.handler} node sets, and this graph has none: it stays empty.`
          : `${owner} reads ${clause.key.path}, which no node sets (a ${namespace.handler} node sets ${namespace.keys.map((item) => namespace.prefix + item).join(', ')}): it stays empty.${meant === undefined ? '' : ` Did you mean "${namespace.prefix}${meant}"?`}`;
        diagnostics.push({
          rule: 'context_key_unset',
          severity: 'warning',
          message,
          ...where,
          fix:
            meant !== undefined
              ? `Write ${clause.key.path.startsWith('context.') ? 'context.' : ''}${namespace.prefix}${meant}.`
              : `Compare a key that a node of this graph sets, or add the ${namespace.handler} node that sets it.`,
          span: spanInAttribute(graph, attribute, clause.key.span),
        });
      }
    }
    return diagnostics;
  },
};
