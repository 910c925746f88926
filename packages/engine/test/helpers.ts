import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Handler } from '../src/handler.js';
import { HandlerRegistry } from '../src/handler-registry.js';
import type { PipelineEvent } from '../src/pipeline-event.js';
import { type RunPipelineOptions, runPipeline } from '../src/run-pipeline.js';
import { createTestClock } from '../src/test/test-clock.js';

const created: string[] = [];

/** A fresh temporary directory, removed after the test. */
export function tempDir(prefix = 'attractor-engine-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A registry whose default handler is `handler`. */
export function registryWith(handler: Handler, handlers: Record<string, Handler> = {}): HandlerRegistry {
  return new HandlerRegistry({ defaultHandler: handler, handlers });
}

/** Runs with a temp run directory and a test clock; collects the events. */
export async function run(options: Omit<RunPipelineOptions, 'logsRoot'> & { logsRoot?: string }) {
  const events: PipelineEvent[] = [];
  const logsRoot = options.logsRoot ?? join(tempDir(), 'run');
  const result = await runPipeline({
    clock: createTestClock(),
    random: () => 0.5,
    ...options,
    logsRoot,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { result, events, logsRoot };
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
