/**
 * Runs DOT text through the real engine for tests (`@attractor/engine/test`).
 */
import { join } from 'node:path';
import type { Graph } from '@attractor/graph';
import type { HandlerRegistry } from '../handler-registry.js';
import type { PipelineEvent } from '../pipeline-event.js';
import { type RunPipelineOptions, runPipeline } from '../run-pipeline.js';
import type { RunResult } from '../run-result.js';
import { graphFrom } from './graph-from.js';
import { tempDir } from './temp-dir.js';

/** Options of {@link runDot}: any `runPipeline` option but `graph`, with the registry required. */
export type RunDotOptions = Partial<Omit<RunPipelineOptions, 'graph' | 'registry'>> & {
  /** The handlers to run with (the handlers package's `createDefaultRegistry()` for the built-ins). */
  readonly registry: HandlerRegistry;
  /** The file name diagnostics of `source` show. Default: `test.dot`. */
  readonly filename?: string;
};

/** What {@link runDot} returns. */
export interface RunDotResult {
  readonly result: RunResult;
  /** Every event of the run, in order. */
  readonly events: PipelineEvent[];
  /** The run directory. */
  readonly logsRoot: string;
  /** The run's working directory. */
  readonly workdir: string;
}

/**
 * Runs DOT source (through {@link graphFrom}) or a graph with `runPipeline`, in a fresh temporary directory
 * ({@link tempDir}): the run directory is `{dir}/run` and the working directory `{dir}` unless given. `random` is
 * fixed at 0.5 (retry jitter); the clock is the system's unless `clock` is given (`createTestClock()`).
 *
 * @throws {Error} when the DOT text has an error diagnostic; otherwise as `runPipeline`.
 */
export async function runDot(source: string | Graph, options: RunDotOptions): Promise<RunDotResult> {
  const graph = typeof source === 'string' ? graphFrom(source, options.filename) : source;
  const root = tempDir();
  const events: PipelineEvent[] = [];
  const logsRoot = options.logsRoot ?? join(root, 'run');
  const workdir = options.workdir ?? root;
  const { filename: _filename, ...runOptions } = options;
  const result = await runPipeline({
    random: () => 0.5,
    ...runOptions,
    workdir,
    graph,
    logsRoot,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { result, events, logsRoot, workdir };
}
