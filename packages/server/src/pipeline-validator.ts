/**
 * Parses and validates the pipelines clients send (spec §9.1, §9.5), within the server's limits and without letting
 * a burst of them stall the server (issue 34 §11, issue 35).
 *
 * - Admission: every pipeline waits its turn in a queue instead of being refused; only when
 *   `maxQueuedValidations` are already waiting is it refused, with `503 SERVER_BUSY` and `Retry-After`.
 * - A small pipeline (up to `inProcessBytes`, 32 KiB by default: a 17-node pipeline is ~1.5 KB) is validated on the
 *   server's own thread, one at a time, each after a turn of the event loop, so requests that arrive meanwhile are
 *   answered between two validations. Parse and lint are linear in the size of the text, so the size bounds the time.
 * - A larger one goes to a pool of worker threads (piscina), where `validateTimeoutMs` (counted from when it starts,
 *   not while it waits) and `validateHeapMb` bound it; the worker sends the graph back as JSON, so the server's thread
 *   never parses it.
 * - Graphs of small pipelines are kept by source text (`graphCacheSize` of them): a pipeline started again is not
 *   parsed again, and the runs of one pipeline share one graph instead of holding a copy each.
 */
import { availableParallelism } from 'node:os';
import {
  type Diagnostic,
  formatDiagnostic,
  Graph,
  type GraphInit,
  type HandlerLintInfo,
  prepareGraph,
  validate,
} from '@attractor/graph';
import PQueue from 'p-queue';
import { Piscina } from 'piscina';
import { ApiError } from './errors/api-error.js';
import { findShellAccess, toolsNotAllowedError } from './find-shell-access.js';
import { createPipelineFileReader } from './pipeline-files.js';
import { checkNodeCount, checkPipelineLimits, type PipelineLimits } from './pipeline-limits.js';
import type { ValidatePipelineTask, ValidatePipelineTaskResult } from './validate-pipeline-worker.js';
import { withoutAgentShellTransform } from './without-agent-shell.js';

/** What {@link PipelineValidator.prepare} needs to know about the handlers a run will have. */
export interface PipelineHandlers {
  /** The handler types the run's registry knows. */
  readonly types: readonly string[];
  /** What the registered handlers declare (`HandlerRegistry.lintInfo()`), for lint. Default: the spec's. */
  readonly lintInfo?: ReadonlyMap<string, HandlerLintInfo>;
  /** The handler type a node runs with (`registry.resolveType(node) ?? graph.handlerType(node)`). */
  readonly handlerTypeOf: (graph: Graph, nodeId: string) => string;
}

/** What {@link PipelineValidator.prepare} validates. */
export interface PipelineToPrepare {
  readonly source: string;
  /** The file name diagnostics show (the path a client gave, or `pipeline.dot` for DOT text). */
  readonly filename: string;
  /**
   * A DOT file's absolute path: the graph carries it, so that `graph_ref` files resolve next to it when the nodes
   * run. Default: none.
   */
  readonly path?: string;
  /**
   * `path` is the file's real path in `pipelinesDir`: the files its `graph_ref`s name are read and validated now too
   * (lint `subgraph_ref`), which makes the result depend on other files, so it is never taken from the cache.
   */
  readonly pipelinesDir?: string;
  readonly handlers: PipelineHandlers;
}

/** Options of {@link createPipelineValidator}. */
export interface PipelineValidatorOptions {
  readonly limits: PipelineLimits;
  /** Whether pipelines may run shell commands; without it they are refused (`TOOLS_NOT_ALLOWED`). */
  readonly allowTools: boolean;
  /**
   * The lint a worker thread can do itself is that of the built-in handlers (`createDefaultRegistry()`): handler
   * declarations hold functions, which cannot be sent to it. True when the runs' handlers may declare more (an
   * embedder's `createRegistry`): a graph from a worker is then linted again here with their declarations. Default:
   * false.
   */
  readonly customHandlers?: boolean;
}

/** See {@link createPipelineValidator}. */
export interface PipelineValidator {
  /**
   * The graph of a valid pipeline, validated as spec §9.1 says (parse, transforms, lint) within the limits, and
   * refused when it could run shell commands and tools are not allowed.
   * @throws {ApiError} `LIMIT_EXCEEDED` (413/422) over a limit; `SERVER_BUSY` (503, `Retry-After`) when
   *   `maxQueuedValidations` pipelines are already waiting; `INVALID_PIPELINE` (400) with `diagnostics`;
   *   `TOOLS_NOT_ALLOWED` (400).
   */
  prepare(pipeline: PipelineToPrepare): Promise<Graph>;
  /** Pipelines waiting for their turn, and being validated. */
  readonly load: { readonly waiting: number; readonly running: number };
  /** Ends the worker threads. */
  close(): Promise<void>;
}

// From src/ (tests) and from dist/ alike, the compiled worker is ../dist/validate-pipeline-worker.js.
const WORKER_URL = new URL('../dist/validate-pipeline-worker.js', import.meta.url);

/** How long an idle worker thread stays, in ms: it is started again for the next large pipeline. */
const WORKER_IDLE_MS = 30_000;

/** Creates the validator of one server (see the file comment). */
export function createPipelineValidator(options: PipelineValidatorOptions): PipelineValidator {
  const { limits, allowTools } = options;
  const threads = Math.max(1, Math.min(limits.validateThreads, availableParallelism()));
  // One at a time on the server's thread; `threads` at a time in the pool.
  const inProcess = new PQueue({ concurrency: 1 });
  const inWorkers = new PQueue({ concurrency: threads, timeout: limits.validateTimeoutMs });
  let pool: Piscina<ValidatePipelineTask, ValidatePipelineTaskResult> | undefined;
  const graphs = new Map<string, Graph>();
  /** Milliseconds the last validations took (for `Retry-After`). */
  let averageMs = 20;

  /** Lets a pipeline wait for its turn in `queue`, unless `maxQueuedValidations` are waiting already. */
  const admit = (queue: PQueue, lanes: number): void => {
    const waiting = inProcess.size + inWorkers.size;
    if (queue.pending < lanes || waiting < limits.maxQueuedValidations) return;
    const seconds = Math.max(1, Math.ceil((queue.size * averageMs) / lanes / 1000));
    throw new ApiError({
      status: 503,
      code: 'SERVER_BUSY',
      message: `The server is busy: ${waiting} pipelines are waiting to be validated (maxQueuedValidations ${limits.maxQueuedValidations}). Try again in ${seconds} s.`,
      retryAfterSeconds: seconds,
      details: { limit: 'maxQueuedValidations' },
    });
  };

  const timed = async <TResult>(work: () => Promise<TResult>): Promise<TResult> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      averageMs = averageMs * 0.8 + (performance.now() - started) * 0.2;
    }
  };

  /** Parses and lints on this thread (a small pipeline), after a turn of the event loop. */
  const prepareHere = async (pipeline: PipelineToPrepare): Promise<Graph> => {
    await new Promise((resolve) => setImmediate(resolve));
    const { graph, diagnostics } = prepareGraph(pipeline.source, {
      filename: pipeline.path ?? pipeline.filename,
      knownHandlerTypes: pipeline.handlers.types,
      ...(pipeline.handlers.lintInfo === undefined ? {} : { handlers: pipeline.handlers.lintInfo }),
      ...(allowTools ? {} : { transforms: [withoutAgentShellTransform] }),
      ...(pipeline.pipelinesDir === undefined
        ? {}
        : { readGraphFile: createPipelineFileReader(pipeline.pipelinesDir) }),
    });
    if (graph !== undefined) checkNodeCount(graph.nodes.size, limits);
    refuseErrors(pipeline, graph, diagnostics);
    return graph!;
  };

  /** Parses and lints in a worker thread (a large pipeline); the graph comes back as JSON. */
  const prepareInWorker = async (
    pipeline: PipelineToPrepare,
    signal: AbortSignal | undefined,
  ): Promise<Graph> => {
    pool ??= new Piscina<ValidatePipelineTask, ValidatePipelineTaskResult>({
      filename: WORKER_URL.href,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: WORKER_IDLE_MS,
      resourceLimits: { maxOldGenerationSizeMb: limits.validateHeapMb },
    });
    let result: ValidatePipelineTaskResult;
    try {
      result = await pool.run(
        {
          source: pipeline.source,
          filename: pipeline.path ?? pipeline.filename,
          knownHandlerTypes: [...pipeline.handlers.types],
          allowTools,
          maxNodes: limits.maxNodes,
          ...(pipeline.pipelinesDir === undefined ? {} : { pipelinesDir: pipeline.pipelinesDir }),
        },
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      throw workerFailure(error, limits);
    }
    checkNodeCount(result.nodes, limits);
    const graph = result.graph === undefined ? undefined : graphFromJson(result.graph);
    // The worker linted with the built-in handlers' declarations; others are checked here.
    const diagnostics =
      graph !== undefined && options.customHandlers === true && result.diagnostics.every(isNotError)
        ? validate(graph, {
            knownHandlerTypes: pipeline.handlers.types,
            ...(pipeline.handlers.lintInfo === undefined ? {} : { handlers: pipeline.handlers.lintInfo }),
          })
        : result.diagnostics;
    refuseErrors(pipeline, graph, diagnostics);
    return graph!;
  };

  /** Refuses a pipeline with errors (INVALID_PIPELINE) or, without `allowTools`, one that can run shell commands. */
  const refuseErrors = (
    pipeline: PipelineToPrepare,
    graph: Graph | undefined,
    found: readonly Diagnostic[],
  ): void => {
    // Diagnostics of the file itself show the path as the client gave it.
    const diagnostics = found.map((diagnostic) =>
      pipeline.path !== undefined && diagnostic.span?.filename === pipeline.path
        ? { ...diagnostic, span: { ...diagnostic.span, filename: pipeline.filename } }
        : diagnostic,
    );
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    if (graph === undefined || errors.length > 0) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_PIPELINE',
        message: `The pipeline has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors
          .map((diagnostic) => formatDiagnostic(diagnostic, pipeline.source, { filename: pipeline.filename }))
          .join('\n')}`,
        details: { diagnostics },
      });
    }
    if (allowTools) return;
    const access = findShellAccess({
      graph,
      handlerTypeOf: (nodeId) => pipeline.handlers.handlerTypeOf(graph, nodeId),
      ...(pipeline.handlers.lintInfo === undefined ? {} : { handlers: pipeline.handlers.lintInfo }),
    });
    if (access.length > 0) throw toolsNotAllowedError(access);
  };

  return {
    async prepare(pipeline) {
      checkPipelineLimits(pipeline.source, limits);
      // Only small pipelines are kept: a graph holds many times its text.
      const key =
        pipeline.pipelinesDir === undefined && pipeline.source.length <= limits.inProcessBytes
          ? `${pipeline.path ?? ''}\u0000${pipeline.filename}\u0000${pipeline.handlers.types.join(',')}\u0000${pipeline.source}`
          : undefined;
      const cached = key === undefined ? undefined : graphs.get(key);
      if (cached !== undefined) {
        // Most recently used last.
        graphs.delete(key!);
        graphs.set(key!, cached);
        return cached;
      }
      let graph: Graph;
      if (pipeline.source.length <= limits.inProcessBytes) {
        admit(inProcess, 1);
        graph = await inProcess.add(() => timed(() => prepareHere(pipeline)));
      } else {
        admit(inWorkers, threads);
        graph = await inWorkers
          .add(({ signal }) => timed(() => prepareInWorker(pipeline, signal)))
          .catch((error: unknown) => {
            throw isTimeout(error) ? timeoutError(limits) : error;
          });
      }
      if (key !== undefined && limits.graphCacheSize > 0) {
        if (graphs.size >= limits.graphCacheSize) graphs.delete(graphs.keys().next().value!);
        graphs.set(key, graph);
      }
      return graph;
    },
    get load() {
      return {
        waiting: inProcess.size + inWorkers.size,
        running: inProcess.pending + inWorkers.pending,
      };
    },
    async close() {
      inProcess.clear();
      inWorkers.clear();
      graphs.clear();
      await pool?.destroy();
      pool = undefined;
    },
  };
}

function isNotError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity !== 'error';
}

/** The graph a worker sent as JSON (`graphToJson` of validate-pipeline-worker.ts). */
function graphFromJson(json: string): Graph {
  return new Graph(JSON.parse(json) as GraphInit);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function timeoutError(limits: PipelineLimits): ApiError {
  return new ApiError({
    status: 422,
    code: 'LIMIT_EXCEEDED',
    message: `Validating the pipeline took longer than ${limits.validateTimeoutMs} ms (validateTimeoutMs) on a thread of its own; make it smaller or split it into sub-pipelines (graph_ref).`,
    details: { limit: 'validateTimeoutMs' },
  });
}

/** What a failed worker task means: a limit the pipeline exceeded, or the error itself. */
function workerFailure(error: unknown, limits: PipelineLimits): unknown {
  if (isTimeout(error)) return timeoutError(limits);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY' || error instanceof RangeError) {
    return new ApiError({
      status: 422,
      code: 'LIMIT_EXCEEDED',
      message: `Validating the pipeline needed more than ${limits.validateHeapMb} MB of memory or stack (validateHeapMb); make it smaller or flatter.`,
      details: { limit: 'validateHeapMb' },
    });
  }
  return error;
}
