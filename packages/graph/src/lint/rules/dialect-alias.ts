import { OUTCOME_WORD_ALIASES } from '@attractor/condition';
import type { GraphAttribute } from '../../graph.js';
import { forEachAttribute } from '../attribute-walk.js';
import { conditionAttributes } from '../condition-attributes.js';
import type { Diagnostic, LintContext, LintRule } from '../diagnostic.js';
import { parseConditionOnce } from '../edge-conditions.js';
import { keyEdit, nodeSpan, replacing, spanInAttribute, valueEdit } from '../source-location.js';

/** Condition keys that read Amplifier's `tool.last_line`. */
const LAST_LINE_KEYS: ReadonlySet<string> = new Set(['tool.last_line', 'context.tool.last_line']);

const COMPUTE = 'compute the answer in a tool or prompt, store it in the context, and compare it with "="';

/** What each condition construct beyond spec §10.2 does here, and how to write it in §10.2 terms. */
const CONDITION_EXTENSIONS: Readonly<Record<string, { readonly reads: string; readonly fix: string }>> = {
  '||': {
    reads: 'either side holds',
    fix: 'draw one edge per alternative (edges are tried in order, spec §3.3)',
  },
  '!': { reads: 'negation', fix: 'compare with "!=" or route the other case with an unconditional edge' },
  '(': { reads: 'grouping', fix: 'split the condition into several edges' },
  '<': { reads: 'less than (numeric when both sides are numbers)', fix: COMPUTE },
  '>': { reads: 'greater than (numeric when both sides are numbers)', fix: COMPUTE },
  '<=': { reads: 'at most (numeric when both sides are numbers)', fix: COMPUTE },
  '>=': { reads: 'at least (numeric when both sides are numbers)', fix: COMPUTE },
  contains: { reads: 'substring test', fix: COMPUTE },
  '!contains': { reads: 'negated substring test', fix: COMPUTE },
  matches: { reads: 'regular expression test', fix: COMPUTE },
};

function severity(context: LintContext): 'error' | 'warning' {
  return context.strict ? 'error' : 'warning';
}

/**
 * `dialect_alias` (WARNING; ERROR with `strict`, DESIGN.md "Dialect", issue 19): the pipeline uses another runner's
 * form of something this one names differently, and it is read as ours:
 *
 * - an attribute name (`llm_prompt`, `node_type`, Fabro's `script` / `model` / `provider` /
 *   `stack.child_workflow`, streamweave's `command`, Amplifier's `dot_file`, `max_cycles`, `wait_ms`,
 *   `stop_condition_key`; see `DIALECT_ALIASES`);
 * - an attribute value (`type="exec"`, `weight="2.0"`, `goal_gate="outcome = success"`, Amplifier's `shape=folder`
 *   sub-pipeline; see `DIALECT_VALUES`);
 * - Fabro's outcome words in conditions (`outcome=succeeded`, `failed`, `partially_succeeded`);
 * - a quoted graph id (`digraph "sp-workflow"`, legal Graphviz) and a second exit node (Kilroy);
 * - condition operators beyond spec §10.2 (`||`, `!`, parentheses, `<`, `>`, `<=`, `>=`, `contains`, `!contains`,
 *   `matches`, decimal numbers; spec §10.7 lists them as future extensions).
 *
 * Each finding says what the construct is read as and how to write it for any runner; `--strict` refuses them.
 */
export const dialectAliasRule: LintRule = {
  name: 'dialect_alias',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    if (graph.idQuoted === true) {
      diagnostics.push({
        rule: 'dialect_alias',
        severity: severity(context),
        message: `The graph id "${graph.id}" is a quoted string: legal Graphviz, but spec §2.2 asks for an identifier; it is read as the name "${graph.id}".`,
        fix: `Write a bare identifier and keep the text as the label: digraph ${graph.id.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^(?=[0-9])/, '_')} { label=${JSON.stringify(graph.id)} ... }.`,
        ...(graph.idSpan === undefined ? {} : { span: graph.idSpan }),
      });
    }
    const exits = graph.exitNodes;
    for (const node of exits.slice(1)) {
      diagnostics.push({
        rule: 'dialect_alias',
        severity: severity(context),
        message: `Node "${node.id}" is a second exit node (exit nodes: ${exits.map((exit) => exit.id).join(', ')}). Spec §7.2 asks for exactly one; Kilroy pipelines use several, so this runner accepts them: reaching any exit node ends the run, with success once its goal gates are satisfied (spec §3.4), whatever the exit is called.`,
        nodeId: node.id,
        fix: `To keep to the spec (and --strict), route every finished path to one exit node; a path that should end the run as failed can end at a node without outgoing edges instead of "${node.id}".`,
        span: nodeSpan(node),
      });
    }
    forEachAttribute(graph, (attribute, owner) => {
      if (attribute.writtenKey === undefined && attribute.writtenValue === undefined) return;
      diagnostics.push({
        rule: 'dialect_alias',
        severity: severity(context),
        ...describeAttribute(attribute, owner.description),
        ...aliasEdits(attribute),
        ...owner.where,
        span:
          (attribute.writtenValue === undefined ? attribute.keySpan : attribute.valueSpan) ??
          attribute.keySpan,
      });
    });
    for (const { attribute, where, owner } of conditionAttributes(graph)) {
      const { ast } = parseConditionOnce(attribute.value);
      if (ast === undefined) continue;
      for (const clause of ast.clauses) {
        if (LAST_LINE_KEYS.has(clause.key.path)) {
          diagnostics.push({
            rule: 'dialect_alias',
            severity: severity(context),
            message: `${owner} reads ${clause.key.path}, the key Amplifier and kenotron pipelines route on; a tool node here sets tool.last_line too (the last non-empty line of its stdout, trimmed).`,
            ...where,
            fix: 'To keep to keys every runner sets (and --strict), print a single line and compare context.tool.output, or write status.json with context_updates.',
            span: spanInAttribute(graph, attribute, clause.key.span),
          });
        }
        if (clause.kind !== 'comparison' || clause.key.path !== 'outcome') continue;
        const word = clause.literal.value;
        if (!Object.hasOwn(OUTCOME_WORD_ALIASES, word)) continue;
        const status = OUTCOME_WORD_ALIASES[word]!;
        diagnostics.push({
          rule: 'dialect_alias',
          severity: severity(context),
          message: `${owner} tests outcome${clause.operator}${word}, Fabro's word for the status "${status}"; it is read as outcome${clause.operator}${status}.`,
          ...where,
          fix: `Change it to outcome${clause.operator}${status}.`,
          ...replacing(spanInAttribute(graph, attribute, clause.literal.span), status),
        });
      }
      for (const extension of ast.extensions) {
        const known = CONDITION_EXTENSIONS[extension.construct];
        const reads = known?.reads ?? 'a decimal number';
        diagnostics.push({
          rule: 'dialect_alias',
          severity: severity(context),
          message: `${owner} uses "${extension.construct}" in its ${attribute.key}, beyond the condition language of spec §10.2 (§10.7 lists it as a future extension; Fabro, Tracker and pi-dev pipelines use it); it is read as ${reads}.`,
          ...where,
          fix: `To keep to spec §10.2 (and --strict), ${known?.fix ?? 'quote the number: "1.5" compares as text'}.`,
          span: spanInAttribute(graph, attribute, extension.span),
        });
      }
    }
    return diagnostics;
  },
};

function describeAttribute(attribute: GraphAttribute, owner: string): Pick<Diagnostic, 'message' | 'fix'> {
  const { key, value, writtenKey, writtenValue } = attribute;
  if (writtenValue === 'shape=folder') {
    return {
      message: `${owner} is a shape=folder node with dot_file, Amplifier's sub-pipeline; it runs as type="subgraph" with graph_ref.`,
      fix: 'Write type="subgraph", graph_ref="<file>.dot" (any shape) instead of shape=folder with dot_file.',
    };
  }
  if (writtenValue === 'shape=parallelogram') {
    return {
      message: `${owner} is a tool-shaped node (shape=parallelogram) with a prompt and no tool_command, as pascals-discrete-attractor writes an agent stage with restricted tools; it runs as an LLM stage (type="codergen").`,
      fix: 'Write type="codergen" (or use shape=box), or give the node a tool_command if it should run a shell command.',
    };
  }
  if (writtenValue === undefined) {
    return {
      message: `${owner} uses "${writtenKey}", another runner's name for "${key}"; it is read as ${key}.`,
      fix: `Rename ${writtenKey} to ${key}.`,
    };
  }
  const written = `${writtenKey ?? key}=${JSON.stringify(writtenValue)}`;
  const canonical = `${key}=${JSON.stringify(value)}`;
  return {
    message: `${owner} has ${written}, another runner's way to write ${canonical}; it is read as ${canonical}.`,
    fix: `Write ${canonical}.`,
  };
}

/** The edits that write an attribute the canonical way: its key renamed, its value converted. */
function aliasEdits(attribute: GraphAttribute): Pick<Diagnostic, 'edits'> {
  const { key, value, writtenKey, writtenValue } = attribute;
  // A shape with another runner's meaning needs more than one attribute changed: the fix says how.
  if (writtenValue === 'shape=folder' || writtenValue === 'shape=parallelogram') return {};
  const edits = [
    ...(writtenKey === undefined ? [] : (keyEdit(attribute, key).edits ?? [])),
    ...(writtenValue === undefined ? [] : (valueEdit(attribute, value).edits ?? [])),
  ];
  return edits.length === 0 ? {} : { edits };
}
