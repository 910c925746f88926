import type { SourceSpan } from '@attractor/dot';
import { itemVariableNames } from '../../expand-variables.js';
import { findJoinNode } from '../../find-join-node.js';
import { foreachListKey } from '../../foreach-list-key.js';
import type { Graph, GraphNode } from '../../graph.js';
import type { Diagnostic, LintContext, LintRule } from '../diagnostic.js';
import { didYouMean } from '../did-you-mean.js';
import { isForeachNode } from '../is-foreach-node.js';
import { attributeSpan, nodeSpan, replacing, spanInAttribute, valueEdit } from '../source-location.js';

/**
 * `foreach` (README "Typed data"): a foreach node (a handler that fans out and reads `over`) needs `over` (ERROR),
 * exactly one outgoing edge, to its body (ERROR), a join where its body ends, a fan-in (ERROR), and a `collect` that
 * is a declared list field, `state="<field>: append"` (ERROR). `over` should name a declared list: a `state` field
 * with the `append` rule or a list input (`inputs="files: string[]"`) (WARNING: an undeclared key holding a list when
 * the node runs works, as the untyped context does everywhere; the fix names a declared list near it), and
 * `max_parallel` written on a `mode=serial` foreach has no effect (WARNING). In a graph with foreach nodes, a prompt,
 * `tool_command` or sub-pipeline value (`var.*`, `input.*`) using `$item.<name>` outside the body of every foreach
 * that binds `<name>` (`as`, default `item`) is an ERROR: a tool command would run with an empty value there, a prompt
 * would show the variable as written, a sub-pipeline node would fail. The
 * fix names what the enclosing foreach binds (a near name as an edit: `$item.fiel` → `$item.file`), or, outside every
 * foreach body, where items are bound. A graph without any foreach node is taken for a sub-pipeline a foreach body
 * runs (its items are bound by the parent). Wrong `mode` and `on_item_error` values are `attribute_type`'s.
 */
export const foreachNodeRule: LintRule = {
  name: 'foreach',
  apply(graph, context) {
    const diagnostics: Diagnostic[] = [];
    const foreaches: Binder[] = [];
    /** The foreach nodes around each node: those whose body holds it, outermost first. */
    const enclosing = new Map<string, Binder[]>();
    for (const node of graph.nodes.values()) {
      if (!isForeachNode(node, context)) continue;
      diagnostics.push(...foreachProblems(graph, node, context));
      const binder: Binder = {
        id: node.id,
        name: node.attributes.as?.value.trim() || 'item',
        join: findJoinNode(graph, node.id, { traitsOf: context.traitsOf }),
      };
      foreaches.push(binder);
      for (const id of bodyOf(graph, node, context))
        enclosing.set(id, [...(enclosing.get(id) ?? []), binder]);
    }
    // A graph without foreach nodes may be the sub-pipeline of a foreach body: its items are bound by the parent.
    if (foreaches.length === 0) return diagnostics;
    for (const node of graph.nodes.values()) {
      const around = enclosing.get(node.id) ?? [];
      // Prompts and tool commands, and what a sub-pipeline node passes on (`var.*`, `input.*`).
      const attributes = Object.values(node.attributes).filter(
        (attribute) =>
          attribute.key === 'prompt' ||
          attribute.key === 'tool_command' ||
          attribute.key.startsWith('var.') ||
          attribute.key.startsWith('input.'),
      );
      for (const attribute of attributes) {
        for (const { name, offset } of itemVariableNames(attribute.value)) {
          if (around.some((binder) => binder.name === name)) continue;
          const span = spanInAttribute(graph, attribute, { offset, length: name.length + 6 });
          diagnostics.push(unboundItem({ node, attribute: attribute.key, name, around, foreaches, span }));
        }
      }
    }
    return diagnostics;
  },
};

/** A foreach node as its body's stages see it: the item name it binds and the fan-in its body ends at. */
interface Binder {
  readonly id: string;
  readonly name: string;
  readonly join: string | undefined;
}

/** The error for `$item.<name>` that no foreach around `node` binds. */
function unboundItem(input: {
  readonly node: GraphNode;
  readonly attribute: string;
  readonly name: string;
  readonly around: readonly Binder[];
  readonly foreaches: readonly Binder[];
  readonly span: SourceSpan | undefined;
}): Diagnostic {
  const { node, attribute, name, around, span } = input;
  const effect =
    attribute === 'tool_command'
      ? 'the command would run with an empty value there'
      : attribute === 'prompt'
        ? `the model would see "$item.${name}" as written`
        : `the node would fail when it runs (the sub-pipeline cannot be given "$item.${name}")`;
  const binds = (binders: readonly Binder[]) =>
    binders.map((binder) => `foreach "${binder.id}" binds $item.${binder.name}`).join(', ');
  const base = { rule: 'foreach', severity: 'error', nodeId: node.id } as const;
  if (around.length === 0) {
    const binders = input.foreaches.filter((binder) => binder.name === name);
    const shown = binders.length === 0 ? input.foreaches : binders;
    return {
      ...base,
      message: `The ${attribute} of "${node.id}" uses $item.${name}, but "${node.id}" is in no foreach body (the nodes between a foreach node and its fan-in), so no item is bound there: ${effect}.`,
      fix: `Use $item.${name} only between a foreach node and its fan-in (here ${shown.map((binder) => `${binds([binder])}${binder.join === undefined ? '' : `, up to "${binder.join}"`}`).join('; ')}); after the fan-in, read the items' results from a declared state field or the foreach's collect list.`,
      ...(span === undefined ? {} : { span }),
    };
  }
  const meant = didYouMean(
    name,
    around.map((binder) => binder.name),
  );
  const innermost = around.at(-1)!;
  return {
    ...base,
    message: `The ${attribute} of "${node.id}" uses $item.${name}, but the foreach around "${node.id}" binds ${around.map((binder) => `$item.${binder.name} (foreach "${binder.id}")`).join(' and ')}, not "${name}": ${effect}.`,
    fix:
      meant === undefined
        ? `The ${binds(around)}: write $item.${innermost.name}, or set as="${name}" on "${innermost.id}".`
        : `The ${binds(around)}; did you mean $item.${meant}?`,
    ...replacing(span, meant === undefined ? undefined : `$item.${meant}`),
  };
}

/** The nodes of a foreach's body: reachable from its body edge without passing its join. */
function bodyOf(graph: Graph, node: GraphNode, context: LintContext): Set<string> {
  const body = new Set<string>();
  const edges = graph.outgoing(node.id);
  if (edges.length !== 1) return body;
  const join = findJoinNode(graph, node.id, { traitsOf: context.traitsOf });
  const queue = [edges[0]!.to];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (id === join || id === node.id || body.has(id) || graph.node(id) === undefined) continue;
    body.add(id);
    for (const edge of graph.outgoing(id)) queue.push(edge.to);
  }
  return body;
}

function foreachProblems(graph: Graph, node: GraphNode, context: LintContext): Diagnostic[] {
  const base = { rule: 'foreach', nodeId: node.id } as const;
  const diagnostics: Diagnostic[] = [];
  const over = node.attributes.over?.value.trim() ?? '';
  if (over === '') {
    diagnostics.push({
      ...base,
      severity: 'error',
      message: `Foreach node "${node.id}" has no over, so there is no list to run its body for.`,
      fix: `Add over="state.<list field>" to "${node.id}", and declare the field: graph [state="<list field>: append"].`,
      span: attributeSpan(node.attributes.over, nodeSpan(node)),
    });
  } else if (!isDeclaredList(graph, foreachListKey(over))) {
    const key = foreachListKey(over);
    const declaration = key.startsWith('input.')
      ? `the input as a list: graph [inputs="${key.slice('input.'.length)}: string[]"].`
      : `it: graph [state="${key}: append"].`;
    const meant = nearDeclaredList(graph, over);
    const attribute = node.attributes.over!;
    diagnostics.push({
      ...base,
      severity: 'warning',
      message: `Foreach node "${node.id}" goes over "${key}", which the graph does not declare as a list (a state field with the append rule, or a list input): the run fails there unless the context holds a list by then.`,
      fix:
        meant === undefined
          ? `Declare ${declaration}`
          : `Did you mean over="${meant}"? Otherwise declare ${declaration}`,
      span: attributeSpan(attribute, nodeSpan(node)),
      ...(meant === undefined ? {} : valueEdit(attribute, meant)),
    });
  }
  const edges = graph.outgoing(node.id);
  if (edges.length !== 1) {
    diagnostics.push({
      ...base,
      severity: 'error',
      message: `Foreach node "${node.id}" has ${edges.length} outgoing edges; it needs exactly one, to the first node of its body.`,
      fix: `Leave one edge from "${node.id}" to its body's first node; route after the body's fan-in instead.`,
      span: nodeSpan(node),
    });
  } else if (findJoinNode(graph, node.id, { traitsOf: context.traitsOf }) === undefined) {
    diagnostics.push({
      ...base,
      severity: 'error',
      message: `The body of foreach node "${node.id}" never reaches a fan-in node (shape=tripleoctagon), so its items have nowhere to join.`,
      fix: `Route the end of the body starting at "${edges[0]!.to}" into a fan-in node (shape=tripleoctagon), and continue the pipeline from there.`,
      span: edges[0]!.span ?? nodeSpan(node),
    });
  }
  const maxParallel = node.attributes.max_parallel;
  if (node.attributes.mode?.value.trim() === 'serial' && maxParallel?.origin === 'explicit') {
    diagnostics.push({
      ...base,
      severity: 'warning',
      message: `Foreach node "${node.id}" runs its items one after another (mode=serial), so max_parallel=${maxParallel.value.trim()} has no effect.`,
      fix: `Remove max_parallel from "${node.id}", or write mode=parallel to run up to ${maxParallel.value.trim()} items at once.`,
      span: maxParallel.keySpan ?? attributeSpan(maxParallel, nodeSpan(node)),
    });
  }
  const collect = node.attributes.collect?.value.trim();
  if (collect !== undefined && graph.settings.state[collect] !== 'append') {
    diagnostics.push({
      ...base,
      severity: 'error',
      message: `Foreach node "${node.id}" collects into "${collect}", which is not a declared list field (state="${collect}: append").`,
      fix: `Declare it: graph [state="${collect}: append"].`,
      span: attributeSpan(node.attributes.collect, nodeSpan(node)),
    });
  }
  return diagnostics;
}

/**
 * The `over` a misspelled or misplaced `over` was likely meant to be: a declared list (a `state` field with the
 * append rule, a list input) whose name is the one written (`over="files"` for the input `files`: `input.files`) or
 * near it (`state.flies`: `state.files`), written with the prefix `over` had (`state.`, `context.` or none; `state.`
 * after `input.`).
 */
function nearDeclaredList(graph: Graph, over: string): string | undefined {
  const key = foreachListKey(over);
  const name = key.startsWith('input.') ? key.slice('input.'.length) : key;
  const written = over.trim();
  const prefix = key.startsWith('input.') ? 'state.' : written.slice(0, written.length - key.length);
  const candidates = new Map<string, string>();
  for (const field of graph.settings.inputs?.kind === 'fields' ? graph.settings.inputs.fields : []) {
    if (field.type.endsWith('[]') || field.type === 'any') candidates.set(field.name, `input.${field.name}`);
  }
  for (const [field, rule] of Object.entries(graph.settings.state)) {
    if (rule === 'append') candidates.set(field, `${prefix}${field}`);
  }
  const same = candidates.get(name);
  if (same !== undefined) return same === written ? undefined : same;
  const near = didYouMean(name, candidates.keys());
  return near === undefined ? undefined : candidates.get(near);
}

/**
 * Whether `key` is declared as a list: a `state` field with the append rule, an `inputs` field of a list type, or the
 * item of an enclosing foreach (not known to be a list or not; the run checks).
 */
function isDeclaredList(graph: Graph, key: string): boolean {
  // An item of an enclosing foreach (`over="item.group"`): its type is the outer list's items'.
  if (graph.settings.state[key] === 'append' || key.startsWith('item.')) return true;
  if (!key.startsWith('input.')) return false;
  const inputs = graph.settings.inputs;
  if (inputs?.kind === 'file') return true;
  const field = inputs?.fields.find((candidate) => candidate.name === key.slice('input.'.length));
  return field !== undefined && (field.type.endsWith('[]') || field.type === 'any');
}
