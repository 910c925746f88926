/**
 * Finds a child run (`?child=<path>` on the run routes, see {@link parseChildRunPath}): its run directory inside a
 * top run's directory (never outside it), or its store among a run store's child stores (a shared run store).
 */
import { existsSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { RunStore } from '@attractor/engine';
import { type ChildRunPath, parseChildRunPath } from './child-run-path.js';
import { ApiError } from './errors/api-error.js';

/** A child run found on disk: its parsed path and its run directory (absolute, real). */
export interface ChildRunDirectory extends ChildRunPath {
  readonly logsRoot: string;
}

/**
 * The child run at `path` under the run directory `runDir`.
 * @throws {ApiError} `INVALID_REQUEST` (400) when `path` is not a child run path; `NOT_FOUND` (404) when no child run
 *   is there (not started yet) or the path leads outside the run directory.
 */
export function resolveChildRunDirectory(runDir: string, path: string): ChildRunDirectory {
  const parsed = parseChildPath(path);
  const logsRoot = join(runDir, ...path.split('/'));
  if (!existsSync(join(logsRoot, 'manifest.json'))) throw childNotFound(path);
  const real = realpathSync(logsRoot);
  if (!real.startsWith(realpathSync(runDir) + sep)) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `"${path}" leads outside the run directory.`,
    });
  }
  return { ...parsed, logsRoot: real };
}

/** A child run found in a run store: its parsed path and its own store (`store.child(path)`). */
export interface StoredChildRun extends ChildRunPath {
  readonly store: RunStore;
}

/**
 * The child run at `path` among the child stores of the run store `store` (a shared run store such as PostgreSQL:
 * `store.child(path)`), with the same answers as {@link resolveChildRunDirectory}.
 * @throws {ApiError} `INVALID_REQUEST` (400) when `path` is not a child run path; `NOT_FOUND` (404) when the child
 *   has written no manifest (not started yet).
 */
export async function openStoredChildRun(store: RunStore, path: string): Promise<StoredChildRun> {
  const parsed = parseChildPath(path);
  let child: RunStore;
  try {
    child = store.child(path);
  } catch {
    throw childNotFound(path);
  }
  if ((await child.readManifest()) === undefined) throw childNotFound(path);
  return { ...parsed, store: child };
}

function parseChildPath(path: string): ChildRunPath {
  const parsed = parseChildRunPath(path);
  if (parsed === undefined) {
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `child must name a child run directory such as "checks/child", "fan/branches/a/checks/child-2" or "checks/child/review/child" (got "${path}").`,
    });
  }
  return parsed;
}

function childNotFound(path: string): ApiError {
  return new ApiError({
    status: 404,
    code: 'NOT_FOUND',
    message: `No child run "${path}" in the run (the node has not started it yet, or the path is wrong).`,
  });
}
