/**
 * Checks the keys of a simulation script (the CLI's `--simulate-script`) against the node ids a run can reach: the
 * pipeline's and those of every sub-pipeline it runs (spec §9.4 `subgraph` nodes, spec §4.11 manager loops).
 */
import { BUILT_IN_HANDLER_TYPE_NAMES, customOutcomeWords, didYouMean, type Graph } from '@attractor/graph';
import { childDotfileOf, loadChildGraph, resolveChildPath } from './child-graph-file.js';
import { SimulationScriptError } from './errors/simulation-script-error.js';
import { readSimulationStep, type SimulationScript } from './simulation-script.js';

/** A script key that names no node, with the node id it was probably meant to be. */
export interface UnknownScriptKey {
  readonly key: string;
  /** The closest node id (see `didYouMean` of `@attractor/graph`), when one is close enough to be a typo. */
  readonly suggestion?: string;
}

/** What {@link checkSimulationScriptKeys} found. */
export interface SimulationScriptKeyCheck {
  /** Keys that name no node of the pipeline or of any sub-pipeline, in script order: their steps never run. */
  readonly unknownKeys: readonly UnknownScriptKey[];
  /**
   * Every node id a key may name: the pipeline's in declaration order, then each sub-pipeline's (depth first, in
   * the order their nodes appear), without repeats.
   */
  readonly nodeIds: readonly string[];
  /**
   * Child pipeline files that could not be read or are invalid (absolute path and why), so their node ids are
   * missing from `nodeIds`. The node that runs such a file fails when it runs; a key meant for it may be reported
   * in `unknownKeys`.
   */
  readonly unreadChildren: readonly { readonly path: string; readonly reason: string }[];
}

/** The pipeline and every sub-pipeline it runs, as {@link loadPipelineGraphs} reads them. */
export interface PipelineGraphs {
  /** The pipeline first, then each sub-pipeline (depth first, each file once). */
  readonly graphs: readonly Graph[];
  /** Child pipeline files that could not be read or are invalid (absolute path and why). */
  readonly unreadChildren: readonly { readonly path: string; readonly reason: string }[];
}

/** Options of {@link loadPipelineGraphs}. */
export interface LoadPipelineGraphsOptions {
  /** The pipeline to run; its `filename` is the base of relative child paths. */
  readonly graph: Graph;
  /** The run's working directory: the base of child paths when the graph has no file name. */
  readonly workdir: string;
  /**
   * What {@link loadPipelineGraphs} already returned for this `graph` and `workdir`, so that several checks read and
   * prepare the child files once. Default: read them.
   */
  readonly pipelineGraphs?: PipelineGraphs;
}

/** Options of {@link checkSimulationScriptKeys}. */
export interface CheckSimulationScriptKeysOptions extends LoadPipelineGraphsOptions {
  readonly script: SimulationScript;
}

/**
 * Finds the keys of a simulation script that name no node the run can execute, so a mistyped node id does not
 * silently leave a scripted outcome unused. A script key is a plain node id, and it applies in the pipeline and in
 * every sub-pipeline: the files named by `graph_ref` on `subgraph` nodes and by `stack.child_dotfile` on manager
 * loops (the node's, else the graph's) are read and prepared like the handlers do when the nodes run (paths
 * relative to the parent DOT file), recursively, each file once.
 *
 * @returns the unknown keys (each with a near node id when there is one), every known node id, and the child files
 *   that could not be read. Never throws for a missing or invalid child file.
 * @example
 * const check = await checkSimulationScriptKeys({ script, graph, workdir: process.cwd() });
 * for (const { key, suggestion } of check.unknownKeys) console.warn(`"${key}" names no node`, suggestion);
 */
export async function checkSimulationScriptKeys(
  options: CheckSimulationScriptKeysOptions,
): Promise<SimulationScriptKeyCheck> {
  const { graphs, unreadChildren } = await loadPipelineGraphs(options);
  const nodeIds = new Set<string>();
  for (const graph of graphs) for (const id of graph.nodes.keys()) nodeIds.add(id);
  const unknownKeys = Object.keys(options.script)
    .filter((key) => !nodeIds.has(key))
    .map((key) => {
      const suggestion = didYouMean(key, nodeIds);
      return suggestion === undefined ? { key } : { key, suggestion };
    });
  return { unknownKeys, nodeIds: [...nodeIds], unreadChildren };
}

/** Options of {@link checkSimulationScriptSteps}. */
export interface CheckSimulationScriptStepsOptions extends CheckSimulationScriptKeysOptions {
  /** The script file, as the error names it. Default: `<inline>`. */
  readonly path?: string;
}

/**
 * Refuses, before a run starts, a script step that the node it names cannot take: a step with `stdout` (what a
 * dry-run tool node prints) for a node that is no tool node of the pipeline or of its sub-pipelines (found like
 * {@link checkSimulationScriptKeys} finds them), such as an LLM stage, which would fail at that node after the
 * earlier stages ran, and again on resume; a step with `response` (an LLM stage's reply) for a node that is no LLM
 * stage. Keys that name no node, or only nodes of a custom handler type, pass.
 *
 * @throws {SimulationScriptError} naming the key, the index and what that node kind takes, e.g. `"write"[0].stdout
 *   is set, but "write" is an LLM stage (codergen), which takes an outcome word ...`.
 * @example
 * await checkSimulationScriptSteps({ script, graph, workdir: process.cwd(), path: 'script.json' });
 */
export async function checkSimulationScriptSteps(options: CheckSimulationScriptStepsOptions): Promise<void> {
  const { graphs } = await loadPipelineGraphs(options);
  const builtIn: ReadonlySet<string> = new Set(BUILT_IN_HANDLER_TYPE_NAMES);
  for (const [key, steps] of Object.entries(options.script)) {
    const types = new Set<string>();
    for (const graph of graphs) {
      const node = graph.nodes.get(key);
      if (node !== undefined) types.add(graph.handlerType(node));
    }
    const type = [...types][0];
    if (type === undefined || [...types].some((kind) => !builtIn.has(kind))) continue;
    const replyIndex = steps.findIndex((step) => readSimulationStep(step).response !== undefined);
    if (replyIndex >= 0 && !types.has('codergen')) {
      throw new SimulationScriptError({
        path: options.path ?? '<inline>',
        problem: `"${key}"[${replyIndex}].response is set, but "${key}" is ${type === 'tool' ? 'a tool node' : `a ${type} node`}, which takes an outcome word or ${type === 'tool' ? '{"outcome": "...", "stdout": "..."}' : '{"outcome": "..."}'}; "response" is the reply of an LLM stage (codergen)`,
      });
    }
    const index = steps.findIndex((step) => readSimulationStep(step).stdout !== undefined);
    if (index < 0 || types.has('tool')) continue;
    const kind = type === 'codergen' ? 'an LLM stage (codergen)' : `a ${type} node`;
    throw new SimulationScriptError({
      path: options.path ?? '<inline>',
      problem: `"${key}"[${index}].stdout is set, but "${key}" is ${kind}, which takes an outcome word ("success", "fail", "retry", "partial_success" or a custom word the pipeline routes on) or {"outcome": "..."}; "stdout" is only for tool nodes (shape=parallelogram) in a dry run`,
    });
  }
}

/** Options of {@link pipelineOutcomeWords}. */
export type PipelineOutcomeWordsOptions = LoadPipelineGraphsOptions;

/**
 * The custom outcome words (docs/architecture.md "Outcomes": any word other than spec §5.2's) that edge
 * conditions of the pipeline and of its sub-pipelines compare `outcome` with (`bug` of `outcome=bug`), in
 * order of appearance without repeats: the words a simulation script may use besides the standard ones
 * (`loadSimulationScript`'s `outcomes`). Sub-pipelines are found like {@link checkSimulationScriptKeys} finds
 * them; unreadable ones are skipped.
 *
 * @example
 * const outcomes = await pipelineOutcomeWords({ graph, workdir: process.cwd() });
 * const script = await loadSimulationScript('script.json', { outcomes });
 */
export async function pipelineOutcomeWords(options: PipelineOutcomeWordsOptions): Promise<string[]> {
  const { graphs } = await loadPipelineGraphs(options);
  const words = new Set<string>();
  for (const graph of graphs) for (const word of customOutcomeWords(graph)) words.add(word);
  return [...words];
}

/**
 * Reads and prepares every sub-pipeline the pipeline runs: the files named by `graph_ref` on `subgraph` nodes and by
 * `stack.child_dotfile` on manager loops, resolved like the handlers resolve them when the nodes run (relative to the
 * parent DOT file), recursively, each file once. Returns `options.pipelineGraphs` when given. Never throws for a
 * missing or invalid child file: it is listed in `unreadChildren`.
 */
export async function loadPipelineGraphs(options: LoadPipelineGraphsOptions): Promise<PipelineGraphs> {
  if (options.pipelineGraphs !== undefined) return options.pipelineGraphs;
  const graphs: Graph[] = [];
  const unreadChildren: { path: string; reason: string }[] = [];
  const visited = new Set<string>();
  const visit = async (graph: Graph): Promise<void> => {
    graphs.push(graph);
    for (const node of graph.nodes.values()) {
      const child = childDotfileOf(node, graph);
      if (child === undefined) continue;
      const path = resolveChildPath({
        childDotfile: child.ref,
        parentFilename: graph.filename,
        workdir: options.workdir,
      });
      if (visited.has(path)) continue;
      visited.add(path);
      const loaded = await loadChildGraph(path, {
        attribute: child.attribute,
        parentFilename: graph.filename,
      });
      if (loaded.ok) await visit(loaded.graph);
      else unreadChildren.push({ path, reason: loaded.reason });
    }
  };
  if (options.graph.filename !== undefined) {
    visited.add(resolveChildPath({ childDotfile: options.graph.filename, workdir: options.workdir }));
  }
  await visit(options.graph);
  return { graphs, unreadChildren };
}
