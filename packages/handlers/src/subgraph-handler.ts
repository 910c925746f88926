/**
 * The `subgraph` handler (spec §9.4 "Pipeline Composition", sub-pipeline nodes): runs another DOT file as a child
 * pipeline and takes its result as the node's outcome.
 */
import type { Handler, JsonValue, Outcome, RunResult } from '@attractor/engine';
import { type Graph, nodeAttribute, SUBGRAPH_VARIABLE_PREFIX } from '@attractor/graph';
import { freshChildDirectory, loadChildGraph, resolveChildPath } from './child-graph-file.js';

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
 * `var.<name>` attribute of the node as `<name>` (a string, as written).
 */
function subgraphChildContext(
  parent: Readonly<Record<string, JsonValue>>,
  variables: Readonly<Record<string, string>>,
): Record<string, JsonValue> {
  const seed: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(parent)) if (!isRunBookkeeping(key)) seed[key] = value;
  return { ...seed, ...variables };
}

/** The `var.<name>` attributes of a node, by `<name>`. */
function variablesOf(
  attributes: Readonly<Record<string, { readonly value: string }>>,
): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [key, attribute] of Object.entries(attributes)) {
    if (key.startsWith(SUBGRAPH_VARIABLE_PREFIX) && key.length > SUBGRAPH_VARIABLE_PREFIX.length) {
      variables[key.slice(SUBGRAPH_VARIABLE_PREFIX.length)] = attribute.value;
    }
  }
  return variables;
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
 * (`{stageDir}/child`, or `child-2`, ... for later attempts), with the parent's backend, interviewer, handlers,
 * clock and event sink (its events carry `branchPath: [..., 'child:<nodeId>']`), in the same working directory.
 * Cancelling the run or the node's `timeout` cancels the child.
 *
 * Context: the child starts with a copy of the parent's context (without the parent's `graph.*`, since the child
 * mirrors its own graph attributes and goal, nor `internal.*`, `outcome`, `preferred_label`, `current_node` and
 * `last_stage`) plus one string value per `var.<name>` attribute of the node (`var.diff_cmd="git diff"` sets
 * `diff_cmd`, taken as written: no `$` expansion). When it ends, every key the child added or changed (the same
 * bookkeeping keys left out) is applied to the parent as the node's context updates, whatever the outcome, so a
 * failing check's `tool.output` reaches the stage that fixes it.
 *
 * Outcome: see {@link subgraphOutcome}: the child's failure, or the outcome of its last stage before the exit.
 *
 * @example
 * // review [type="subgraph", graph_ref="../review-core/pipeline.dot", var.diff_cmd="git diff main"]
 * registry.register('subgraph', createSubgraphHandler());
 */
export function createSubgraphHandler(): Handler {
  return {
    async execute(node, context, graph, _logsRoot, runtime) {
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
      const loaded = await loadChildGraph(path, { attribute: 'graph_ref' });
      if (!loaded.ok) return { status: 'fail', failureReason: loaded.reason, retryable: false };
      const seed = subgraphChildContext(context.snapshot(), variablesOf(node.attributes));
      const handle = runtime.runChild({
        graph: loaded.graph,
        logsRoot: freshChildDirectory(runtime.stageDir),
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
  };
}
