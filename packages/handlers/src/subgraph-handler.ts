/**
 * The `subgraph` handler (spec §9.4 "Pipeline Composition", sub-pipeline nodes): runs another DOT file as a child
 * pipeline and takes its result as the node's outcome.
 */
import type { JsonValue, Outcome, RunResult } from '@attractor/engine';
import {
  type DeclaredHandler,
  defineHandler,
  INPUT_CONTEXT_PREFIX,
  inputContextValues,
  inputsOfContext,
  itemsOfContext,
} from '@attractor/engine';
import {
  expandVariables,
  type Graph,
  type GraphNode,
  itemVariableNames,
  nodeAttribute,
  SPEC_HANDLER_DECLARATIONS,
  SUBGRAPH_INPUT_PREFIX,
  SUBGRAPH_VARIABLE_PREFIX,
} from '@attractor/graph';
import { freshChildName, loadChildGraph, resolveChildPath } from './child-graph-file.js';
import { SUBGRAPH_OUTPUT_FILE } from './stage-files.js';
import { mapOutputFields, notesWith } from './structured-output.js';
import { subgraphInputs } from './subgraph-inputs.js';

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
 * The child's initial context: a copy of the parent's values (without the parent run's bookkeeping, and without the
 * parent's own `input.*` when the child declares inputs, which then come from the node alone), then each
 * `var.<name>` attribute of the node as `<name>` (a string, already expanded), then the child's inputs as
 * `input.<name>`.
 */
function subgraphChildContext(options: {
  readonly parent: Readonly<Record<string, JsonValue>>;
  readonly variables: Readonly<Record<string, string>>;
  readonly inputs: Readonly<Record<string, JsonValue>> | undefined;
}): Record<string, JsonValue> {
  const seed: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(options.parent)) {
    if (isRunBookkeeping(key)) continue;
    if (options.inputs !== undefined && key.startsWith(INPUT_CONTEXT_PREFIX)) continue;
    seed[key] = value;
  }
  return {
    ...seed,
    ...options.variables,
    ...(options.inputs === undefined ? {} : inputContextValues(options.inputs)),
  };
}

/**
 * The node's attributes whose key starts with `prefix` (`var.`, `input.`), by the rest of the key, each value
 * expanded by `expandVariables`, the expander of prompts: `$goal` (the parent graph's goal), `$context.<key>` (the
 * parent's context when the node runs), `$input.<name>` (the parent run's inputs) and `$item.<as>` (the item of the
 * `foreach` the node runs in). A `$context.<key>` the context does not have, or an `$item.<name>` no foreach around
 * the node binds, is a problem (`reason`), not an empty string or the text as written: a command built from it would
 * run wrong.
 */
function expandedAttributes(options: {
  readonly node: GraphNode;
  readonly prefix: string;
  readonly goal: string;
  readonly context: Readonly<Record<string, JsonValue>>;
}):
  | { readonly ok: true; readonly values: Record<string, string> }
  | { readonly ok: false; readonly attribute: string; readonly reason: string } {
  const { prefix, context } = options;
  const values: Record<string, string> = {};
  const items = itemsOfContext(context);
  for (const [key, attribute] of Object.entries(options.node.attributes)) {
    if (!key.startsWith(prefix) || key.length <= prefix.length) continue;
    const expanded = expandVariables(attribute.value, {
      goal: options.goal,
      context,
      inputs: inputsOfContext(context),
      items,
    });
    if (expanded.missingKeys.length > 0) {
      const keys = expanded.missingKeys.map((missing) => `$context.${missing}`).join(', ');
      return {
        ok: false,
        attribute: key,
        reason: `${key} uses ${keys}, but the context has no ${expanded.missingKeys.map((missing) => `"${missing}"`).join(', ')} when the node runs; set it earlier in the run (e.g. attractor run --set ${expanded.missingKeys[0]}=...) or write the value into ${key}`,
      };
    }
    // An `$item.<name>` no foreach around the node binds would reach the child as written: a wrong value, not a
    // missing one.
    const unbound = itemVariableNames(attribute.value).filter(({ name }) => !Object.hasOwn(items, name));
    if (unbound.length > 0) {
      const bound = Object.keys(items);
      return {
        ok: false,
        attribute: key,
        reason: `${key} uses ${unbound.map(({ name }) => `$item.${name}`).join(', ')}, but ${bound.length === 0 ? 'the node runs in no foreach body, so no item is bound' : `the foreach around the node binds ${bound.map((name) => `$item.${name}`).join(', ')}`}; write ${bound.length === 0 ? 'the value' : `$item.${bound[0]}`} in ${key}`,
      };
    }
    values[key.slice(prefix.length)] = expanded.text;
  }
  return { ok: true, values };
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
 * `diff_cmd`). In those values `$goal` becomes the parent graph's goal, `$context.<key>` the value of `<key>` in
 * the parent's context when the node runs (`var.diff_cmd="jj diff --from $context.base@origin"` with `base=main`
 * sets `jj diff --from main@origin`), `$input.<name>` the parent run's input and `$item.<as>` the item of the
 * `foreach` the node runs in, by `expandVariables` of `@attractor/graph`, the expander of prompts; other `$`
 * text (`$HOME`) stays. A `$context.<key>` the context does not have fails the node (not retried), naming the
 * attribute and the key. When it ends, every key the child added or changed (the same
 * bookkeeping keys left out) is applied to the parent as the node's context updates, whatever the outcome, so a
 * failing check's `tool.output` reaches the stage that fixes it.
 *
 * Typed data (README "Typed data"): a child that declares `inputs` takes them from the node's `input.<name>`
 * attributes, expanded as `var.*` values are and read as `attractor run --input` reads them (a string input keeps
 * the text, any other is JSON-parsed), then checked as a run checks its inputs before its first stage; a missing,
 * mistyped or undeclared one fails the node (not retried), naming the field, the type, the value and the attribute
 * to set. The child sees them as `input.<name>` / `$input.<name>`, instead of the parent's inputs. A child that
 * declares `outputs` is a function: only its result (`RunResult.output`, when it succeeded) reaches the parent,
 * mapped by the node's `out_map` (`out_map="verdict -> review.verdict"`) or, without one, each output key under
 * `<node id>.<key>`, as a structured stage output is; its other context writes stay in the child. The output is
 * written to the stage's `output.json` too: the output a `foreach` item's `collect` entry (or a parallel branch's
 * result) records when the node ends its body.
 *
 * Outcome: see {@link subgraphOutcome}: the child's failure, or the outcome of its last stage before the exit.
 *
 * @example
 * // review [type="subgraph", graph_ref="../review-core/pipeline.dot", var.diff_cmd="git diff main"]
 * // check  [type="subgraph", graph_ref="review-one.dot", input.file="$context.target", out_map="verdict -> review.verdict"]
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
      const expansion = { node, goal: graph.settings.goal, context: parentContext };
      const variables = expandedAttributes({ ...expansion, prefix: SUBGRAPH_VARIABLE_PREFIX });
      const texts = variables.ok
        ? expandedAttributes({ ...expansion, prefix: SUBGRAPH_INPUT_PREFIX })
        : variables;
      if (!texts.ok) {
        return {
          status: 'fail',
          failureReason: `Subgraph node "${node.id}": ${texts.reason}`,
          retryable: false,
        };
      }
      const variableValues = variables.ok ? variables.values : {};
      // A child that declares inputs, or a node that gives some, is called like a function: its inputs are checked
      // as a run's are before the first stage. Otherwise the child sees the parent's inputs, as before.
      const typed =
        loaded.graph.settings.inputs !== undefined || Object.keys(texts.values).length > 0
          ? await subgraphInputs({
              nodeId: node.id,
              ref,
              child: loaded.graph,
              childPath: loaded.path,
              texts: texts.values,
            })
          : undefined;
      if (typed?.ok === false) return { status: 'fail', failureReason: typed.reason, retryable: false };
      const seed = subgraphChildContext({
        parent: parentContext,
        variables: variableValues,
        inputs: typed?.inputs,
      });
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
      const outcome = subgraphOutcome({ ref, result, child: loaded.graph });
      if (loaded.graph.settings.outputs.length > 0) {
        // A child with outputs is a function: only its result reaches the parent, mapped like a structured output.
        if (result.output === undefined) return { ...outcome, contextUpdates: {} };
        // The stage's output, as response.md is an LLM stage's: what a foreach item or parallel branch records.
        await runtime.stage.writeFile(SUBGRAPH_OUTPUT_FILE, `${JSON.stringify(result.output, null, 2)}\n`);
        const mapped = mapOutputFields({ node, value: result.output as JsonValue });
        for (const warning of mapped.warnings)
          runtime.emit({ type: 'stage.log', level: 'warn', message: warning });
        return {
          ...outcome,
          ...notesWith(outcome.notes, mapped.warnings),
          contextUpdates: mapped.contextUpdates,
        };
      }
      const contextUpdates: Record<string, JsonValue> = {};
      for (const [key, value] of Object.entries(result.context.diff(seed))) {
        if (!isRunBookkeeping(key)) contextUpdates[key] = value;
      }
      return { ...outcome, contextUpdates };
    },
  });
}
