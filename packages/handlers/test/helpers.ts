import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  graphFrom,
  type RunDotOptions,
  type RunDotResult,
  runDot as runEngineDot,
  tempDir,
} from '@attractor/engine/test';
import type { Graph } from '@attractor/graph';
import { createDefaultRegistry } from '../src/create-default-registry.js';

export { graphFrom, tempDir };

/** Writes a DOT file into `dir` and returns its path. */
export function writeDot(dir: string, name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

/** Runs DOT source (or a graph) through the real engine (`runDot` of `@attractor/engine/test`), by default with the built-in handlers. */
export function runDot(source: string | Graph, options: Partial<RunDotOptions> = {}): Promise<RunDotResult> {
  return runEngineDot(source, { ...options, registry: options.registry ?? createDefaultRegistry() });
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

/**
 * Polls until `path` exists; rejects after `timeoutMs` (a generous limit: the test waits on the file, not on time).
 */
export async function waitForFile(path: string, timeoutMs = 60_000): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 20) {
    if (waited >= timeoutMs) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await delay(20);
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
