import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type HandlerRegistry,
  type PipelineEvent,
  type RunPipelineOptions,
  type RunResult,
  runPipeline,
} from '@attractor/engine';
import { formatDiagnostic, type Graph, prepareGraph } from '@attractor/graph';
import { afterEach } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';

const created: string[] = [];

/** A fresh temporary directory, removed after the test. */
export function tempDir(prefix = 'attractor-handlers-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Parses DOT with prepareGraph and fails the test on any error diagnostic. */
export function graphFrom(source: string, filename?: string): Graph {
  const prepared = prepareGraph(source, filename === undefined ? {} : { filename });
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    throw new Error(errors.map((diagnostic) => formatDiagnostic(diagnostic, source)).join('\n'));
  }
  return prepared.graph;
}

/** Writes a DOT file into `dir` and returns its path. */
export function writeDot(dir: string, name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

export interface RunDotResult {
  readonly result: RunResult;
  readonly events: PipelineEvent[];
  readonly logsRoot: string;
}

/** Runs DOT source (or a graph) through the real engine with the default registry. */
export async function runDot(
  source: string | Graph,
  options: Partial<Omit<RunPipelineOptions, 'graph'>> & {
    readonly registry?: HandlerRegistry;
    readonly filename?: string;
  } = {},
): Promise<RunDotResult> {
  const graph = typeof source === 'string' ? graphFrom(source, options.filename) : source;
  const events: PipelineEvent[] = [];
  const logsRoot = options.logsRoot ?? join(tempDir(), 'run');
  const result = await runPipeline({
    random: () => 0.5,
    ...options,
    graph,
    registry: options.registry ?? createDefaultRegistry(),
    logsRoot,
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  return { result, events, logsRoot };
}

/** Reads a text file. */
export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** Parses a JSON file. */
export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** A promise with its resolver, for tests that wait on a handler. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Waits `ms` milliseconds of real time (tests only). */
export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Whether a process is alive: the sandbox does not reap orphans, so a zombie (state Z) counts as dead. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls until `pid` is dead or `timeoutMs` passed; returns whether it died. */
export async function waitUntilDead(pid: number, timeoutMs: number): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs && isAlive(pid); waited += 50) await delay(50);
  return !isAlive(pid);
}

/** Writes `files` (relative path → DOT) into a fresh directory; returns the directory and the first file's graph. */
export function pipelines(files: Readonly<Record<string, string>>): { dir: string; graph: Graph } {
  const dir = tempDir();
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), source);
  }
  const path = join(dir, Object.keys(files)[0]!);
  return { dir, graph: graphFrom(readText(path), path) };
}
