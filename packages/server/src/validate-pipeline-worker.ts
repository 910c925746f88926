/**
 * The task of the validation worker threads (pipeline-validator.ts, a piscina pool): parses, transforms and lints one
 * large pipeline off the server's thread and sends back its diagnostics and, when it parsed, its graph as JSON, so the
 * server's thread never parses it again.
 */
import { type Diagnostic, type Graph, type GraphInit, prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { createPipelineFileReader } from './pipeline-files.js';
import { withoutAgentShellTransform } from './without-agent-shell.js';

/** What the worker gets (structured-cloned). */
export interface ValidatePipelineTask {
  readonly source: string;
  /** The file name diagnostics carry (the real path for a file of the pipelines directory). */
  readonly filename: string;
  readonly knownHandlerTypes: readonly string[];
  readonly allowTools: boolean;
  /** The graph is not sent back past this many nodes (the server refuses it). */
  readonly maxNodes: number;
  /** Set for a file of the pipelines directory: its `graph_ref`s are read from there. */
  readonly pipelinesDir?: string;
}

/** What the worker answers. */
export interface ValidatePipelineTaskResult {
  readonly nodes: number;
  readonly diagnostics: readonly Diagnostic[];
  /** The graph (`GraphInit` as JSON, spans plain) when it parsed, has no error and is within `maxNodes`. */
  readonly graph?: string;
}

/** The built-in handlers' declarations: what lint can know here (their functions cannot be sent to a thread). */
const builtInHandlers = createDefaultRegistry().lintInfo();

/** Validates one pipeline (the piscina task). */
export default function validatePipelineTask(task: ValidatePipelineTask): ValidatePipelineTaskResult {
  const { graph, diagnostics } = prepareGraph(task.source, {
    filename: task.filename,
    knownHandlerTypes: task.knownHandlerTypes,
    handlers: builtInHandlers,
    ...(task.allowTools ? {} : { transforms: [withoutAgentShellTransform] }),
    ...(task.pipelinesDir === undefined
      ? {}
      : { readGraphFile: createPipelineFileReader(task.pipelinesDir) }),
  });
  const nodes = graph?.nodes.size ?? 0;
  const valid = graph !== undefined && !diagnostics.some((diagnostic) => diagnostic.severity === 'error');
  return {
    nodes,
    diagnostics,
    ...(valid && nodes <= task.maxNodes ? { graph: graphToJson(graph) } : {}),
  };
}

/** The graph as JSON that `new Graph(JSON.parse(text))` rebuilds (spans become plain objects: `OffsetSpan.toJSON`). */
function graphToJson(graph: Graph): string {
  const init: GraphInit = {
    id: graph.id,
    ...(graph.idSpan === undefined ? {} : { idSpan: graph.idSpan }),
    ...(graph.idQuoted === true ? { idQuoted: true } : {}),
    attributes: graph.attributes,
    settings: graph.settings,
    nodes: [...graph.nodes.values()],
    edges: graph.edges,
    ...(graph.filename === undefined ? {} : { filename: graph.filename }),
    ...(graph.source === undefined ? {} : { source: graph.source }),
  };
  return JSON.stringify(init);
}
