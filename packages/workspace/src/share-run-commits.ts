/**
 * A run's commits across machines (README "Workspaces", "Across machines"): a worker that picks up a run another
 * worker started must find the run's branch at the checkpoint's commit. Two ways, usable together:
 * - a shared repository (`remote`: a path or URL every worker can push to and fetch from): the run's branch is pushed
 *   there after every stage commit, and fetched from there by the next machine;
 * - git bundles in the run store (`store`): after every stage commit, a bundle of the new commits is written as the
 *   artifact `workspace-bundle-<n>` (the first one holds the start commit and its history), and the next machine
 *   unbundles them in order. This needs nothing but the run store (PostgreSQL), at the cost of the run's history in it.
 * Both run before the checkpoint that names the commit is written: a checkpoint never names a commit that did not leave
 * the machine.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStore } from '@attractor/engine';
import type { GitRunner } from './git-runner.js';

/** Where a run's commits are shared, besides the repository of the machine running it. */
export interface CommitSharing {
  /** A shared repository (path or URL) the run's branch is pushed to and fetched from. */
  readonly remote?: string;
  /** The run's store, holding a git bundle per stage commit (artifacts `workspace-bundle-<n>`). */
  readonly store?: RunStore;
}

/** The artifact id prefix of a run's bundles; `<n>` is zero-padded so that ids sort in order. */
export const BUNDLE_ARTIFACT_PREFIX = 'workspace-bundle-';

/** The number the next bundle of a run gets (1 for the first). */
export async function nextBundleNumber(store: RunStore): Promise<number> {
  const numbers = (await store.listArtifacts())
    .map((file) => file.name)
    .filter((name) => name.startsWith(BUNDLE_ARTIFACT_PREFIX))
    .map((name) => Number(name.slice(BUNDLE_ARTIFACT_PREFIX.length)))
    .filter((number) => Number.isInteger(number));
  return numbers.length === 0 ? 1 : Math.max(...numbers) + 1;
}

/**
 * Publishes the run's branch `ref` (at `commit`): pushes it to the remote (forced: a resumed run may continue from a
 * commit before the remote's tip) and writes a bundle of the commits after `since` (all of its history without
 * `since`) to the store as bundle number `bundleNumber`.
 * @throws {GitCommandError} when the push or the bundle fails (the run then stops before its checkpoint).
 */
export async function publishRunCommits(options: {
  /** Runs in a repository or worktree holding `ref`. */
  readonly git: GitRunner;
  readonly sharing: CommitSharing;
  readonly ref: string;
  readonly commit: string;
  readonly since?: string;
  readonly bundleNumber: number;
}): Promise<void> {
  const { git, sharing, ref, commit } = options;
  if (sharing.remote !== undefined) {
    await git.run(['push', '-q', '--no-verify', sharing.remote, `+${commit}:refs/heads/${ref}`]);
  }
  if (sharing.store !== undefined && options.since !== commit) {
    const directory = await mkdtemp(join(tmpdir(), 'attractor-bundle-'));
    try {
      const file = join(directory, 'run.bundle');
      await git.run([
        'bundle',
        'create',
        '-q',
        file,
        options.since === undefined ? `refs/heads/${ref}` : `${options.since}..refs/heads/${ref}`,
      ]);
      await sharing.store.writeArtifact(
        `${BUNDLE_ARTIFACT_PREFIX}${String(options.bundleNumber).padStart(6, '0')}`,
        await readFile(file),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}

/** Whether the repository `git` runs in holds `commit`. */
export async function hasCommit(git: GitRunner, commit: string): Promise<boolean> {
  const result = await git
    .run(['cat-file', '-e', `${commit}^{commit}`], { okExitCodes: [0, 1, 128] })
    .catch(() => undefined);
  return result?.exitCode === 0;
}

/**
 * Brings the commits of a run another machine made into the repository `git` runs in: the run's branch `ref` from
 * the remote (into `refs/attractor-incoming/<ref>`, not the branch itself, which a worktree here may have checked
 * out), then the bundles of the run's store, in order, until `commit` is there.
 * @returns the tip of what was fetched for `ref` (for what lies past `commit`), and whether `commit` is now here.
 */
export async function fetchRunCommits(options: {
  readonly git: GitRunner;
  readonly sharing: CommitSharing;
  readonly ref: string;
  readonly commit: string;
}): Promise<{ readonly found: boolean; readonly tip?: string }> {
  const { git, sharing, ref, commit } = options;
  let tip: string | undefined;
  if (sharing.remote !== undefined) {
    const incoming = `refs/attractor-incoming/${ref}`;
    const fetched = await git.run(
      ['fetch', '-q', '--no-write-fetch-head', '--no-tags', sharing.remote, `+refs/heads/${ref}:${incoming}`],
      { okExitCodes: [0, 1, 128] },
    );
    if (fetched.exitCode === 0) tip = await git.text(['rev-parse', '--verify', '-q', incoming]);
  }
  if (!(await hasCommit(git, commit)) && sharing.store !== undefined) {
    const names = (await sharing.store.listArtifacts())
      .map((file) => file.name)
      .filter((name) => name.startsWith(BUNDLE_ARTIFACT_PREFIX))
      .sort();
    const directory = await mkdtemp(join(tmpdir(), 'attractor-bundle-'));
    try {
      for (const name of names) {
        const bytes = await sharing.store.readArtifact(name);
        if (bytes === undefined) continue;
        const file = join(directory, `${name}.bundle`);
        await writeFile(file, bytes);
        // `<id> <ref>` lines: the commits the bundle brings (its tips).
        const heads = await git.text(['bundle', 'unbundle', file]);
        tip = /^([0-9a-f]{40,64}) /m.exec(heads)?.[1] ?? tip;
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  return { found: await hasCommit(git, commit), ...(tip === undefined ? {} : { tip }) };
}
