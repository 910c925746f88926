/**
 * Runs DOT source through the public API exactly as an embedding app would: `prepareGraph` (parse, build,
 * transforms, lint) then `runPipeline` with the default handler registry, in a fresh temporary directory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CodergenBackend,
  type HandlerRegistry,
  type Interviewer,
  type PipelineEvent,
  type RunPipelineOptions,
  type RunResult,
  runPipeline,
} from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { formatDiagnostic, type Graph, prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { afterEach } from 'vitest';

const created: string[] = [];

/** A fresh temporary directory, removed after the test. */
export function tempDir(prefix = 'attractor-conformance-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Parses, builds, transforms and lints DOT source; throws with the formatted errors when any diagnostic is an error. */
export function graphFrom(source: string, filename = 'conformance.dot'): Graph {
  const prepared = prepareGraph(source, { filename });
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    throw new Error(errors.map((diagnostic) => formatDiagnostic(diagnostic, source)).join('\n'));
  }
  return prepared.graph;
}

/** What {@link runDot} returns: the run result, every event in order, and the run directory. */
export interface RunDotResult {
  readonly result: RunResult;
  readonly events: PipelineEvent[];
  readonly logsRoot: string;
  readonly workdir: string;
}

/** Options of {@link runDot}: any `runPipeline` option plus a registry, backend and interviewer. */
export type RunDotOptions = Partial<Omit<RunPipelineOptions, 'graph'>> & {
  readonly registry?: HandlerRegistry;
  readonly backend?: CodergenBackend;
  readonly interviewer?: Interviewer;
};

/**
 * Runs DOT source (or a prepared graph) with the default registry, the simulation backend and a test clock
 * (retry backoff is recorded, not slept), in a fresh temporary directory.
 */
export async function runDot(source: string | Graph, options: RunDotOptions = {}): Promise<RunDotResult> {
  const graph = typeof source === 'string' ? graphFrom(source) : source;
  const events: PipelineEvent[] = [];
  const root = tempDir();
  const logsRoot = options.logsRoot ?? join(root, 'run');
  const backend = options.backend ?? createSimulationBackend();
  const result = await runPipeline({
    clock: createTestClock(),
    random: () => 0.5,
    workdir: root,
    ...options,
    graph,
    backend,
    registry:
      options.registry ??
      createDefaultRegistry({
        backend,
        ...(options.interviewer === undefined ? {} : { interviewer: options.interviewer }),
      }),
    logsRoot,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { result, events, logsRoot, workdir: options.workdir ?? root };
}

/** Reads a UTF-8 file. */
export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** Reads and parses a JSON file. */
export function readJson<TValue = Record<string, unknown>>(path: string): TValue {
  return JSON.parse(readFileSync(path, 'utf8')) as TValue;
}
