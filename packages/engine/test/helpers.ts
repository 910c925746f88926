import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Handler } from '../src/handler.js';
import { HandlerRegistry } from '../src/handler-registry.js';
import type { PipelineEvent } from '../src/pipeline-event.js';
import type { RunPipelineOptions } from '../src/run-pipeline.js';
import { runDot } from '../src/test/run-dot.js';
import { tempDir } from '../src/test/temp-dir.js';
import { createTestClock } from '../src/test/test-clock.js';

export { tempDir };

/** A registry whose default handler is `handler`. */
export function registryWith(handler: Handler, handlers: Record<string, Handler> = {}): HandlerRegistry {
  return new HandlerRegistry({ defaultHandler: handler, handlers });
}

/** Runs a graph with `runDot` and a test clock: a temp run directory and workdir; collects the events. */
export function run(options: Omit<RunPipelineOptions, 'logsRoot'> & { logsRoot?: string }) {
  const { graph, ...rest } = options;
  return runDot(graph, { clock: createTestClock(), ...rest });
}

/** Parses a JSON file. */
export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Parses `events.jsonl`. */
export function readEvents(logsRoot: string): PipelineEvent[] {
  return readFileSync(join(logsRoot, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as PipelineEvent);
}
