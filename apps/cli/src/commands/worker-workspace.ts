/**
 * The workspaces of a worker's runs (README "Workspaces", "Across machines"): the mode a run asks for (`attractor run
 * --queue --workspace git`), else its graph's `workspace` attribute, else the worker's `--workspace` (default
 * in-place); worktrees under `<workdir root>/.attractor/workspaces`; with `--workspace-remote`, every run's branch
 * pushed to that shared repository after each stage commit (a `git` run starts from its HEAD), and without it, the
 * run's commits kept as bundles in the run store, so that any worker can continue a run another one started.
 */
import { isAbsolute, join, resolve } from 'node:path';
import type { WorkspaceProvider } from '@attractor/engine';
import type { GitIdentity, WorkspaceMode } from '@attractor/workspace';
import type { CliIo } from '../cli-io.js';
import { commitIdentityOf } from '../run/commit-author.js';
import type { WorkerCliOptions } from './worker-command.js';

/** A worker's workspace settings, from its options. */
export interface WorkerWorkspace {
  /** The mode of runs that choose none. */
  readonly defaultMode: WorkspaceMode;
  /** The shared repository, when any (a path made absolute, or a URL). */
  readonly remote?: string;
  /** Keep runs' commits as bundles in the run store. */
  readonly bundles: boolean;
  readonly identity?: GitIdentity;
  /** Where runs' worktrees and the worker's repository go. */
  readonly root: string;
}

/**
 * The workspace settings of `attractor worker`.
 * @throws {CliError} when `--commit-author` is not `Name <email>`.
 */
export async function workerWorkspaceOf(
  cli: WorkerCliOptions,
  io: CliIo,
  workdirRoot: string,
): Promise<WorkerWorkspace> {
  const remote = cli.workspaceRemote === undefined ? undefined : remoteLocation(cli.workspaceRemote, io.cwd);
  const identity = await commitIdentityOf(cli.commitAuthor, '--commit-author');
  return {
    defaultMode: cli.workspace ?? 'in-place',
    ...(remote === undefined ? {} : { remote }),
    bundles: cli.workspaceBundles ?? remote === undefined,
    ...(identity === undefined ? {} : { identity }),
    root: join(workdirRoot, '.attractor', 'workspaces'),
  };
}

/** The provider of one run's workspace: `requested` is the mode the run's request asks for, if any. */
export async function createWorkerWorkspace(
  settings: WorkerWorkspace,
  requested: WorkspaceMode | undefined,
): Promise<WorkspaceProvider> {
  const { createWorkspaceProvider } = await import('@attractor/workspace');
  return createWorkspaceProvider({
    ...(requested === undefined ? {} : { mode: requested }),
    defaultMode: settings.defaultMode,
    root: settings.root,
    ...(settings.remote === undefined ? {} : { remote: settings.remote }),
    bundles: settings.bundles,
    ...(settings.identity === undefined ? {} : { identity: settings.identity }),
  });
}

/** How the worker's log names its workspaces: `in-place`, `git, pushed to <remote>`, `copy, bundles in the run store`. */
export function describeWorkerWorkspace(settings: WorkerWorkspace): string {
  return [
    `workspaces ${settings.defaultMode} unless a run chooses`,
    ...(settings.remote === undefined ? [] : [`branches pushed to ${settings.remote}`]),
    ...(settings.bundles ? ['commits bundled in the run store'] : []),
  ].join(', ');
}

/**
 * `--workspace-remote`: a URL (`https://…`, `ssh://…`) or scp-like address (`git@host:repo.git`) as given; a path made
 * absolute.
 */
export function remoteLocation(value: string, cwd: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || (/^[^/]+:/.test(value) && !isAbsolute(value))) return value;
  return resolve(cwd, value);
}
