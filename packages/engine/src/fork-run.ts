/**
 * Fork (docs/architecture.md "Checkpoint": every checkpoint is kept as history, so a run can start again from
 * any of them): a new run directory seeded with the snapshot taken after one completed stage of another run,
 * then resumed. The source run is only read.
 */
import { basename, resolve } from 'node:path';
import { findJoinNode, type Graph, type GraphNode } from '@attractor/graph';
import { systemClock } from './clock.js';
import { Context } from './context.js';
import { decide } from './decide.js';
import { ResumeError } from './errors/resume-error.js';
import { RunDirectoryInUseError } from './errors/run-directory-in-use-error.js';
import { createFileRunStore, readEngineVersion } from './file-run-store.js';
import { graphFingerprint } from './graph-fingerprint.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { JsonValue } from './json-value.js';
import { type PipelineRun, type PipelineServicesOptions, startResumedPipeline } from './run-pipeline.js';
import type { RunResult } from './run-result.js';
import type { Checkpoint, CheckpointOrigin, RunManifest } from './run-store.js';
import { VisitedNodes } from './visited-nodes.js';
import { nodePositions, WalkState } from './walk-state.js';

/** Options of {@link forkRun}. */
export interface ForkRunOptions extends PipelineServicesOptions {
  /** The source run directory (read only). */
  readonly from: string;
  /**
   * The completed stage to start after: `node` (its latest visit) or `node@visit` (visits count from 1), e.g.
   * `review@2`. The fork continues where the source run went next, or, with an edited `graph`, where the edited
   * graph routes that stage's outcome.
   */
  readonly at: string;
  /** The new run directory; must not hold a run. */
  readonly logsRoot: string;
  /** The DOT file of `graph`, for the new manifest. Default: `graph.filename`. */
  readonly sourcePath?: string;
  /**
   * Context values set over the checkpoint's context (JSON; a key given replaces the checkpoint's value). With them
   * the stage's outcome is routed again against the edited context, so an edge condition on an edited key can send
   * the fork elsewhere than the source run went. Default: none (the checkpoint's context as it is).
   */
  readonly context?: Readonly<Record<string, JsonValue>>;
}

/**
 * Starts a new run from the snapshot after a completed stage of another run
 * (docs/architecture.md "Checkpoint"), optionally with an edited graph, and returns it running. The new run's
 * manifest records `forked_from` and each of its checkpoints `origin`; the source run is never modified.
 *
 * @throws {ResumeError} (as a rejection) when the source run has no manifest or no checkpoint after `at`, or the
 *   edited graph lacks the stage.
 * @throws {RunDirectoryInUseError} (as a rejection) when `logsRoot` already holds a run.
 * @throws {ContextValueError} (as a rejection) when a value of `context` is not JSON.
 * @example
 * const run = await startForkedPipeline({ from: '.attractor/runs/a', at: 'review@2', logsRoot: '.attractor/runs/b', graph, registry });
 * const result = await run.result;
 */
export async function startForkedPipeline(options: ForkRunOptions): Promise<PipelineRun> {
  const createStore =
    options.createRunStore ??
    ((root: string) => createFileRunStore({ logsRoot: root, fsync: options.fsync ?? false }));
  const from = resolve(options.from);
  const logsRoot = resolve(options.logsRoot);
  const source = createStore(from);
  let manifest: RunManifest | undefined;
  let history: Checkpoint[];
  try {
    manifest = await source.readManifest();
    history = await source.readCheckpointHistory();
  } finally {
    await source.close();
  }
  if (manifest === undefined) {
    throw new ResumeError({
      reason: 'no_checkpoint',
      logsRoot: from,
      message: `Cannot fork ${from}: it has no manifest.json.`,
    });
  }
  const { index, checkpoint, node, visit } = findStage(from, history, options.at);
  const graph = options.graph;
  const sourceIds = manifest.node_ids ?? [...graph.nodes.keys()];
  const positions = nodePositions(graph.nodes.keys());
  const clock = options.clock ?? systemClock;
  const origin: CheckpointOrigin = {
    run_id: checkpoint.run_id,
    logs_root: from,
    checkpoint: index,
    node,
    visit,
  };
  const sha = graphFingerprint(graph);
  // Checked (JSON values only) before anything is written: a ContextValueError names the key.
  const context =
    options.context === undefined
      ? checkpoint.context
      : new Context({ ...checkpoint.context, ...options.context }).snapshot();
  const next =
    sha === checkpoint.graph_sha256 && options.context === undefined
      ? { nodeId: checkpoint.next_node, edgeIndex: checkpoint.next_edge_index }
      : reroute(graph, { ...checkpoint, context }, sourceIds, positions, from, options.registry);

  const target = createStore(logsRoot);
  try {
    if ((await target.readCheckpoint().catch(() => 'corrupt')) !== undefined) {
      throw new RunDirectoryInUseError({ logsRoot });
    }
    const now = new Date(clock.now()).toISOString();
    const sourcePath = options.sourcePath ?? graph.filename;
    await target.writeManifest({
      version: 1,
      run_id: basename(logsRoot),
      graph_name: graph.id,
      goal: graph.settings.goal,
      ...(sourcePath === undefined ? {} : { source_path: resolve(sourcePath) }),
      source_sha256: sha,
      started_at: now,
      engine_version: readEngineVersion(),
      workdir: resolve(options.workdir ?? manifest.workdir),
      node_ids: [...graph.nodes.keys()],
      forked_from: origin,
    });
    const { failure_reason: _reason, ...kept } = checkpoint;
    await target.writeCheckpoint({
      ...kept,
      timestamp: now,
      run_id: basename(logsRoot),
      graph_sha256: sha,
      state: 'running',
      next_node: next.nodeId,
      next_edge_index: next.edgeIndex,
      context,
      visited_nodes: reencodeVisited(checkpoint.visited_nodes, sourceIds, positions),
      last_seq: 0,
      origin,
    });
  } finally {
    await target.close();
  }
  // `from` means something else to resume (the node to continue at).
  const { from: _from, at: _at, sourcePath: _sourcePath, context: _context, ...services } = options;
  return startResumedPipeline({ ...services, logsRoot });
}

/** Like {@link startForkedPipeline}, resolving with the fork's result. */
export async function forkRun(options: ForkRunOptions): Promise<RunResult> {
  return (await startForkedPipeline(options)).result;
}

/**
 * The stage a fork starts after, from its `node[@visit]` spelling (`forkRun`'s `at`, `attractor fork --at`):
 * `review@2` is the second visit of `review`, `review` its latest. Internal to the engine's packages.
 */
export function parseForkPoint(at: string): { readonly node: string; readonly visit?: number } {
  const match = /^(.+?)(?:@(\d+))?$/.exec(at);
  const node = match?.[1] ?? at;
  return match?.[2] === undefined ? { node } : { node, visit: Number(match[2]) };
}

/** The checkpoint written after visit `visit` (default: the latest) of `node`, parsed from `at` (`node[@visit]`). */
function findStage(
  from: string,
  history: readonly Checkpoint[],
  at: string,
): { index: number; checkpoint: Checkpoint; node: string; visit: number } {
  const { node, visit: wanted } = parseForkPoint(at);
  let found: { index: number; checkpoint: Checkpoint; node: string; visit: number } | undefined;
  const stages: string[] = [];
  for (const [index, checkpoint] of history.entries()) {
    if (checkpoint.current_node === '') continue;
    const visit = checkpoint.node_visits[checkpoint.current_node] ?? 1;
    stages.push(`${checkpoint.current_node}@${visit}`);
    if (checkpoint.current_node !== node || (wanted !== undefined && visit !== wanted)) continue;
    found = { index, checkpoint, node, visit };
  }
  if (found === undefined) {
    throw new ResumeError({
      reason: 'unknown_node',
      logsRoot: from,
      message: `Cannot fork ${from} at ${at}: it has no checkpoint after that stage. Its completed stages: ${stages.join(', ') || '(none)'}.`,
    });
  }
  return found;
}

/** Where an edited graph routes the outcome of the checkpoint's last stage. */
function reroute(
  graph: Graph,
  checkpoint: Checkpoint,
  sourceIds: readonly string[],
  positions: ReadonlyMap<string, number>,
  from: string,
  registry: HandlerRegistry,
): { nodeId: string; edgeIndex: number | null } {
  const traitsOf = (node: GraphNode) => registry.traitsOf(node, graph);
  const nodeId = checkpoint.current_node;
  const outcome = checkpoint.node_outcomes[nodeId];
  if (graph.node(nodeId) === undefined || outcome === undefined) {
    throw new ResumeError({
      reason: 'unknown_node',
      logsRoot: from,
      message: `Cannot fork ${from} at "${nodeId}": the edited graph "${graph.id}" has no node "${nodeId}".`,
    });
  }
  const state = WalkState.fromCheckpoint(checkpoint, sourceIds, positions);
  const decision = decide(
    state,
    { type: 'stage.completed', nodeId, outcome },
    {
      graph,
      context: new Context(checkpoint.context),
      maxSteps: Number.POSITIVE_INFINITY,
      exitNodeIds: new Set(graph.exitNodes.map((node) => node.id)),
      lastNodeId: nodeId,
      joinOf: (id) => findJoinNode(graph, id, { traitsOf }),
      fansOut: (id) => {
        const node = graph.node(id);
        return node !== undefined && traitsOf(node).fansOut === true;
      },
      callsModel: (id) => {
        const node = graph.node(id);
        return node !== undefined && traitsOf(node).callsModel === true;
      },
    },
  );
  if (decision.next.kind === 'end') {
    throw new ResumeError({
      reason: 'already_completed',
      logsRoot: from,
      message: `Cannot fork ${from} after "${nodeId}": the edited graph or context ends the run there (${decision.next.end.kind === 'fail' ? decision.next.end.reason : 'success'}).`,
    });
  }
  return {
    nodeId: decision.next.nodeId,
    edgeIndex: decision.next.kind === 'go' ? (decision.next.edge?.index ?? null) : null,
  };
}

/** `visited_nodes` of the source graph's positions, in the positions of the fork's graph. */
function reencodeVisited(
  text: string,
  sourceIds: readonly string[],
  positions: ReadonlyMap<string, number>,
): string {
  const visited = new VisitedNodes();
  for (const position of VisitedNodes.parse(text).positions()) {
    const id = sourceIds[position];
    const target = id === undefined ? undefined : positions.get(id);
    if (target !== undefined) visited.add(target);
  }
  return visited.toString();
}
