/**
 * The `subgraph` handler (spec §9.4 "Pipeline Composition", sub-pipeline nodes): runs another DOT file as a child
 * pipeline and takes its result as the node's outcome.
 */
import type { JsonValue, Outcome, RunResult } from '@attractor/engine';
import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import {
  expandVariables,
  type Graph,
  nodeAttribute,
  SPEC_HANDLER_DECLARATIONS,
  SUBGRAPH_VARIABLE_PREFIX,
} from '@attractor/graph';
import { freshChildName, loadChildGraph, resolveChildPath } from './child-graph-file.js';

/**
 * Context keys that belong to one run's engine, never carried between parent and child: the graph attributes
 * (`graph.*`, each run mirrors its own), retry counters (`internal.*`) and the routing state of the last stage
 * (`current_node`, `outcome`, `preferred_label`, `last_stage`).
 */
function isRunBookkeeping(key: string): boolean {
  return (
    key.startsWith('graph.') ||
    key.startsWith('internal.') ||
    key === 'current_node' ||
    key === 'outcome' ||
    key === 'preferred_label' ||
    key === 'last_stage'
  );
}

/**
 * The child's initial context: a copy of the parent's values (without the parent run's bookkeeping), then each
 * `var.<name>` attribute of the node as `<name>` (a string, already expanded).
 */
function subgraphChildContext(
  parent: Readonly<Record<string, JsonValue>>,
  variables: Readonly<Record<string, string>>,
): Record<string, JsonValue> {
  const seed: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(parent)) if (!isRunBookkeeping(key)) seed[key] = value;
  return { ...seed, ...variables };
}

/**
 * The `var.<name>` attributes of a node, by `<name>`, with `$goal` (the parent graph's goal) and `$context.<key>`
 * (the parent's context when the node runs) expanded by `expandVariables`, the expander of prompts. A reference to
 * a key the context does not have is a problem, not an empty string: a command built from it would run wrong.
 */
function variablesOf(options: {
  readonly attributes: Readonly<Record<string, { readonly value: string }>>;
  readonly goal: string;
  readonly context: Readonly<Record<string, JsonValue>>;
}):
  | { readonly ok: true; readonly variables: Record<string, string> }
  | { readonly ok: false; readonly attribute: string; readonly missingKeys: readonly string[] } {
  const variables: Record<string, string> = {};
  for (const [key, attribute] of Object.entries(options.attributes)) {
    if (!key.startsWith(SUBGRAPH_VARIABLE_PREFIX) || key.length <= SUBGRAPH_VARIABLE_PREFIX.length) continue;
    const expanded = expandVariables(attribute.value, { goal: options.goal, context: options.context });
    if (expanded.missingKeys.length > 0) {
      return { ok: false, attribute: key, missingKeys: expanded.missingKeys };
    }
    variables[key.slice(SUBGRAPH_VARIABLE_PREFIX.length)] = expanded.text;
  }
  return { ok: true, variables };
}

/**
 * The node's outcome for a finished child run: a `fail` or `cancelled` child is FAIL with its reason; a child that
 * reached its exit takes the outcome of its last stage before the exit (SUCCESS, PARTIAL_SUCCESS, a custom word,
 * or FAIL when a failed stage was routed to the exit), so the parent's edges route on the sub-pipeline's verdict.
 */
function subgraphOutcome(options: {
  readonly ref: string;
  readonly result: RunResult;
  readonly child: Graph;
}): Outcome {
  const { ref, result, child } = options;
  const where = `sub-pipeline ${ref} (${result.logsRoot})`;
  if (result.status === 'fail') {
    return { status: 'fail', failureReason: `${where} failed: ${result.failureReason ?? 'no reason given'}` };
  }
  if (result.status === 'cancelled') {
    return {
      status: 'fail',
      failureReason: `${where} was cancelled${result.failureReason === undefined ? '' : `: ${result.failureReason}`}`,
    };
  }
  const lastId = [...result.completedNodes].reverse().find((id) => {
    const node = child.node(id);
    return node !== undefined && child.handlerType(node) !== 'exit';
  });
  const last = lastId === undefined ? undefined : result.nodeOutcomes[lastId];
  const stages = result.completedNodes.length;
  if (last === undefined || last.status === 'success') {
    return {
      status: 'success',
      notes: `Sub-pipeline ${ref} completed (${stages} stages): ${result.logsRoot}`,
    };
  }
  if (last.status === 'fail') {
    return {
      status: 'fail',
      failureReason: `${where} reached its exit after stage "${lastId}" failed: ${last.failureReason ?? 'no reason given'}`,
    };
  }
  return {
    status: last.status,
    notes: `Sub-pipeline ${ref} completed (${stages} stages); its last stage "${lastId}" ended ${last.status}: ${result.logsRoot}`,
    ...(last.failureReason === undefined ? {} : { failureReason: last.failureReason }),
  };
}

/**
 * Creates the `subgraph` handler (spec §9.4 sub-pipeline nodes), for nodes with `type="subgraph"`.
 *
 * The node's `graph_ref` names a DOT file, resolved relative to the directory of the parent's DOT file
 * (`graph.filename`; without one, relative to the run's working directory). The file is read, prepared and
 * validated when the node runs (a missing or invalid file, or one whose own `graph_ref`s lead back to it, is a
 * FAIL that is not retried, with the diagnostics and their `file:line:col`; `attractor validate` reports the same
 * before a run). It runs through `runtime.runChild` in its own run directory under the stage directory
 * (`child` in the stage, or `child-2`, ... for later attempts; the file store's `{stageDir}/child`), with the parent's backend, interviewer, handlers,
 * clock and event sink (its events carry `branchPath: [..., 'child:<nodeId>']`), in the same working directory.
 * Cancelling the run or the node's `timeout` cancels the child.
 *
 * Context: the child starts with a copy of the parent's context (without the parent's `graph.*`, since the child
 * mirrors its own graph attributes and goal, nor `internal.*`, `outcome`, `preferred_label`, `current_node` and
 * `last_stage`) plus one string value per `var.<name>` attribute of the node (`var.diff_cmd="git diff"` sets
 * `diff_cmd`). In those values `$goal` becomes the parent graph's goal and `$context.<key>` the value of `<key>` in
 * the parent's context when the node runs (`var.diff_cmd="jj diff --from $context.base@origin"` with `base=main`
 * sets `jj diff --from main@origin`), by `expandVariables` of `@attractor/graph`, the expander of prompts; other `$`
 * text (`$HOME`) stays. A `$context.<key>` the context does not have fails the node (not retried), naming the
 * attribute and the key. When it ends, every key the child added or changed (the same
 * bookkeeping keys left out) is applied to the parent as the node's context updates, whatever the outcome, so a
 * failing check's `tool.output` reaches the stage that fixes it.
 *
 * Outcome: see {@link subgraphOutcome}: the child's failure, or the outcome of its last stage before the exit.
 *
 * @example
 * // review [type="subgraph", graph_ref="../review-core/pipeline.dot", var.diff_cmd="git diff main"]
 * registry.register('subgraph', createSubgraphHandler());
 */
export function createSubgraphHandler(): DeclaredHandler {
  return defineHandler({
    type: 'subgraph',
    ...SPEC_HANDLER_DECLARATIONS.subgraph,
    async execute({ node, context, graph, runtime }) {
      const ref = nodeAttribute(node, 'graph_ref')?.trim() ?? '';
      if (ref === '') {
        return {
          status: 'fail',
          failureReason: `Subgraph node "${node.id}" has no graph_ref; add graph_ref="child.dot" (relative to this DOT file)`,
          retryable: false,
        };
      }
      const path = resolveChildPath({
        childDotfile: ref,
        parentFilename: graph.filename,
        workdir: runtime.workdir,
      });
      const loaded = await loadChildGraph(path, { attribute: 'graph_ref', parentFilename: graph.filename });
      if (!loaded.ok) return { status: 'fail', failureReason: loaded.reason, retryable: false };
      const parentContext = context.snapshot();
      const variables = variablesOf({
        attributes: node.attributes,
        goal: graph.settings.goal,
        context: parentContext,
      });
      if (!variables.ok) {
        const keys = variables.missingKeys.map((key) => `$context.${key}`).join(', ');
        return {
          status: 'fail',
          failureReason: `Subgraph node "${node.id}": ${variables.attribute} uses ${keys}, but the context has no ${variables.missingKeys.map((key) => `"${key}"`).join(', ')} when the node runs; set it earlier in the run (e.g. attractor run --set ${variables.missingKeys[0]}=...) or write the value into ${variables.attribute}`,
          retryable: false,
        };
      }
      const seed = subgraphChildContext(parentContext, variables.variables);
      const handle = runtime.runChild({
        graph: loaded.graph,
        name: await freshChildName(runtime.stage),
        context: seed,
      });
      runtime.emit({
        type: 'stage.log',
        level: 'info',
        message: `sub-pipeline ${ref} started: ${handle.logsRoot}`,
      });
      const result = await handle.result;
      const contextUpdates: Record<string, JsonValue> = {};
      for (const [key, value] of Object.entries(result.context.diff(seed))) {
        if (!isRunBookkeeping(key)) contextUpdates[key] = value;
      }
      const outcome = subgraphOutcome({ ref, result, child: loaded.graph });
      return { ...outcome, contextUpdates };
    },
  });
}
