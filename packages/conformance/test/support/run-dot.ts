/**
 * Runs DOT source through the public API exactly as an embedding app would: `prepareGraph` (parse, build,
 * transforms, lint) then `runPipeline` with the default handler registry, in a fresh temporary directory.
 */
import { readFileSync } from 'node:fs';
import type { CodergenBackend, Interviewer } from '@attractor/engine';
import {
  createTestClock,
  type RunDotOptions as EngineRunDotOptions,
  graphFrom,
  type RunDotResult,
  runDot as runEngineDot,
  tempDir,
} from '@attractor/engine/test';
import type { Graph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';

export type { RunDotResult };

export { graphFrom, tempDir };

/** Options of {@link runDot}: any `runPipeline` option plus a registry, backend and interviewer. */
export type RunDotOptions = Partial<EngineRunDotOptions> & {
  readonly backend?: CodergenBackend;
  readonly interviewer?: Interviewer;
};

/**
 * Runs DOT source (or a prepared graph) with `runDot` of `@attractor/engine/test`: the default registry, the
 * simulation backend and a test clock (retry backoff is recorded, not slept), in a fresh temporary directory.
 */
export function runDot(source: string | Graph, options: RunDotOptions = {}): Promise<RunDotResult> {
  const backend = options.backend ?? createSimulationBackend();
  return runEngineDot(typeof source === 'string' ? graphFrom(source, 'conformance.dot') : source, {
    clock: createTestClock(),
    ...options,
    backend,
    registry:
      options.registry ??
      createDefaultRegistry({
        backend,
        ...(options.interviewer === undefined ? {} : { interviewer: options.interviewer }),
      }),
  });
}

/** Reads a UTF-8 file. */
export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** Reads and parses a JSON file. */
export function readJson<TValue = Record<string, unknown>>(path: string): TValue {
  return JSON.parse(readFileSync(path, 'utf8')) as TValue;
}
