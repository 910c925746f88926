import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { spanInAttribute } from '../source-location.js';

/**
 * Context namespaces whose keys only built-in handlers set, the handler type that sets them, and the keys: a tool
 * node sets `tool.*` (DESIGN.md "Tool nodes"), a manager loop `stack.child.*` (spec §4.11).
 */
const HANDLER_KEYS: readonly {
  readonly prefix: string;
  readonly handler: string;
  readonly keys: readonly string[];
}[] = [
  { prefix: 'tool.', handler: 'tool', keys: ['output', 'exit_code', 'stderr', 'last_line'] },
  {
    prefix: 'stack.child.',
    handler: 'stack.manager_loop',
    keys: [
      'status',
      'current_node',
      'completed_nodes',
      'outcome',
      'last_status',
      'failure_reason',
      'run_id',
      'logs_root',
      'cycles',
    ],
  },
];

/** Handler types whose children hand their context keys back to the parent. */
const IMPORTING_HANDLERS: ReadonlySet<string> = new Set(['subgraph', 'stack.manager_loop', 'parallel']);

/**
 * `context_key_unset` (WARNING, issue 19): a condition reads a key of a namespace that only a built-in handler
 * writes, and no node of the graph can write it: `context.tool.last_lines` (the tool handler sets `tool.output`,
 * `tool.exit_code`, `tool.stderr` and `tool.last_line`), or `context.tool.output` in a graph without a tool node.
 * The key stays empty, so the condition compares `""`. Graphs with sub-pipelines, manager loops or parallel
 * branches are only checked for misspelt keys (a child may set the others).
 */
export const contextKeyUnsetRule: LintRule = {
  name: 'context_key_unset',
  apply(graph) {
    const diagnostics: Diagnostic[] = [];
    const types = new Set([...graph.nodes.values()].map((node) => graph.handlerType(node)));
    const imports = [...IMPORTING_HANDLERS].some((type) => types.has(type));
    for (const { attribute, where, owner } of conditionAttributes(graph)) {
      const { ast } = parseConditionOnce(attribute.value);
      if (ast === undefined) continue;
      for (const clause of ast.clauses) {
        const key = clause.key.path.replace(/^context\./, '');
        const namespace = HANDLER_KEYS.find((entry) => key.startsWith(entry.prefix));
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
