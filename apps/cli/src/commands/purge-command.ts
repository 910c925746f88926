/**
 * `attractor purge --older-than 30d [--status S,…] [--yes]`: removes old runs: their run directories (or their rows
 * of a PostgreSQL store), the queue's record of them, and their git worktrees and `attractor/*` branches. Without
 * `--yes` it only lists what it would remove.
 */
import { type RunCatalog, RunLockedError, type WorkspaceRecord } from '@attractor/engine';
import type { CleanableRun } from '@attractor/workspace';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { displayPath } from '../load-pipeline.js';
import { listSharedRuns, type SharedRunStatus } from '../shared/list-shared-runs.js';
import {
  connectQueueOrExplain,
  LOCAL_RUNS,
  openRunCatalog,
  queueUrlOf,
  storeUrlOf,
} from '../shared/shared-locations.js';

/** Options of `attractor purge`. */
export interface PurgeCliOptions {
  /** `30d`, `12h`, `90m`, `2w`, `45s`. */
  readonly olderThan: string;
  /** Statuses to remove, comma-separated or repeated. Default: {@link DEFAULT_STATUSES}. */
  readonly status?: readonly string[];
  /** Remove; without it, only list. */
  readonly yes?: boolean;
  /** List only (the default without `--yes`). */
  readonly dryRun?: boolean;
  readonly store?: string;
  readonly queue?: string;
}

/** What `purge` may remove: runs that ended, and runs whose runner died. */
const PURGEABLE: readonly SharedRunStatus[] = ['success', 'fail', 'cancelled', 'dead', 'interrupted'];
/** What it removes unless told: runs that ended. */
const DEFAULT_STATUSES: readonly SharedRunStatus[] = ['success', 'fail', 'cancelled', 'dead'];

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * Removes (with `yes`) or lists the runs of the store (`--store` / `ATTRACTOR_STORE_URL`, else `./.attractor/runs`)
 * and queue whose status is one of `status` and that ended (or, for an interrupted run, started) longer ago than
 * `olderThan`. A run that is queued, running or waiting is never removed: the store's `removeRun` takes the run's lock
 * first. Exit code 0, or 1 when a run could not be removed (it started running again).
 * @throws {CliError} for an age or a status it does not know.
 */
export async function purgeCommand(options: {
  readonly options: PurgeCliOptions;
  readonly io: CliIo;
  /** Now, in milliseconds since the epoch. Default: `Date.now()`. */
  readonly nowMs?: number;
}): Promise<number> {
  const { io } = options;
  const cli = options.options;
  const ageMs = parseAge(cli.olderThan);
  const statuses = parseStatuses(cli.status);
  const remove = cli.yes === true && cli.dryRun !== true;
  const storeUrl = storeUrlOf(cli.store, io) ?? LOCAL_RUNS;
  const queueUrl = queueUrlOf(cli.queue, io);
  const queue = queueUrl === undefined ? undefined : await connectQueueOrExplain(queueUrl);
  const catalog = await openRunCatalog(storeUrl, io).catch(async (error: unknown) => {
    await queue?.close();
    throw error;
  });
  try {
    const cutoff = (options.nowMs ?? Date.now()) - ageMs;
    const old = (await listSharedRuns({ catalog, ...(queue === undefined ? {} : { queue }) })).filter(
      (entry) => statuses.includes(entry.status) && Date.parse(entry.endedAt ?? entry.startedAt) < cutoff,
    );
    let failed = 0;
    const removed: CleanableRun[] = [];
    for (const entry of old) {
      const line = `${entry.runId}  ${entry.status}  ${entry.graphName}  ${entry.endedAt ?? entry.startedAt}`;
      if (!remove) {
        io.stdout.write(`would remove ${line}\n`);
        const record = await workspaceRecordOf(catalog, entry.runId);
        if (record !== undefined) removed.push({ runId: entry.runId, record, finished: true });
        continue;
      }
      try {
        const record = await workspaceRecordOf(catalog, entry.runId);
        await catalog.removeRun(entry.runId);
        await queue?.removeRun({ runId: entry.runId });
        io.stdout.write(`removed ${line}\n`);
        if (record !== undefined) removed.push({ runId: entry.runId, record, finished: true });
      } catch (error) {
        if (!RunLockedError.isInstance(error)) throw error;
        failed += 1;
        io.stderr.write(`kept ${entry.runId}: it is running again (${error.message})\n`);
      }
    }
    await removeWorkspaces(removed, io, !remove);
    const what = `${old.length} run${old.length === 1 ? '' : 's'} of ${catalog.location}${queue === undefined || queue.location === catalog.location ? '' : ` and ${queue.location}`} ${statuses.join(', ')}, older than ${cli.olderThan}`;
    io.stderr.write(
      remove
        ? `${what}: removed ${old.length - failed}${failed === 0 ? '' : `, kept ${failed}`}\n`
        : `${what}: nothing removed${old.length === 0 ? '' : `; to remove them: ${cliCommand(io.env)} purge --older-than ${cli.olderThan}${cli.status === undefined ? '' : ` --status ${statuses.join(',')}`} --yes`}\n`,
    );
    return failed === 0 ? 0 : 1;
  } finally {
    await catalog.close();
    await queue?.close();
  }
}

/** The workspace record of a run's checkpoint (README "Workspaces"), or undefined (in place, no checkpoint). */
async function workspaceRecordOf(catalog: RunCatalog, runId: string): Promise<WorkspaceRecord | undefined> {
  const store = catalog.open(runId);
  try {
    return (await store.readCheckpoint().catch(() => undefined))?.workspace;
  } finally {
    await store.close();
  }
}

/**
 * Removes the git worktrees and `attractor/*` branches of removed runs (what `attractor clean` would remove of a deleted
 * run), in their repositories on this machine; a repository that is not here is left alone. With `dryRun`, lists what
 * it would remove. A run whose workspace git refuses to remove (its branch checked out elsewhere, say) is named on
 * stderr and kept; the others are still removed.
 */
async function removeWorkspaces(runs: readonly CleanableRun[], io: CliIo, dryRun: boolean): Promise<void> {
  if (runs.length === 0) return;
  const { cleanWorkspaces } = await import('@attractor/workspace');
  const verb = dryRun ? 'would remove' : 'removed';
  for (const run of runs) {
    try {
      const report = await cleanWorkspaces({ runs: [run], onlyRuns: true, branches: true, dryRun });
      for (const path of report.worktrees) io.stdout.write(`${verb} worktree ${displayPath(path, io.cwd)}\n`);
      for (const branch of report.branches) io.stdout.write(`${verb} branch ${branch}\n`);
    } catch (error) {
      io.stderr.write(
        `kept the git workspace of ${run.runId}: ${error instanceof Error ? error.message : String(error)} (remove it with git worktree remove / git branch -D)\n`,
      );
    }
  }
}

/** `30d` → milliseconds. */
function parseAge(text: string): number {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (match === null) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `--older-than ${text} is no age: use a whole number and a unit, s, m, h, d or w (e.g. 30d, 12h).`,
    });
  }
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** `--status fail,cancelled --status dead` → the statuses; refuses a run that may still run. */
function parseStatuses(values: readonly string[] | undefined): readonly SharedRunStatus[] {
  if (values === undefined) return DEFAULT_STATUSES;
  const statuses = values.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const status of statuses) {
    if (!(PURGEABLE as readonly string[]).includes(status)) {
      throw new CliError({
        code: 'CLI_USAGE',
        message: `--status ${status}: purge removes runs that are ${PURGEABLE.join(', ')}; never one that is queued, running or waiting at a gate.`,
      });
    }
  }
  return statuses as SharedRunStatus[];
}
