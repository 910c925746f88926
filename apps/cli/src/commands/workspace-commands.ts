/**
 * `attractor diff`, `attractor apply` and `attractor clean` (README "Workspaces"): what a run's workspace recorded,
 * brought into the user's checkout, and cleaned up. The git work is `@attractor/workspace`'s; this file reads run
 * directories and words the answers.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createFileRunStore, type StageCompletedEvent } from '@attractor/engine';
import { parseForkPoint } from '@attractor/engine/internal';
import type { CleanableRun } from '@attractor/workspace';
import { cliCommand, quoteArgument } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { type RunDirectory, readRunDirectory } from '../inspect/read-run-directory.js';
import { displayPath } from '../load-pipeline.js';

/** The run directories `clean` looks at when `--runs-dir` names none. */
const DEFAULT_RUNS_DIR = join('.attractor', 'runs');

/** Turns the workspace package's refusals into CLI errors (exit 1 for a conflict, else 2). */
async function workspaceErrors<TValue>(action: () => Promise<TValue>): Promise<TValue> {
  const { WorkspaceError, GitCommandError } = await import('@attractor/workspace');
  try {
    return await action();
  } catch (error) {
    if (WorkspaceError.isInstance(error)) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: error.message,
        exitCode: error.reason === 'conflict' ? 1 : 2,
        cause: error,
      });
    }
    if (GitCommandError.isInstance(error)) {
      throw new CliError({ code: 'CLI_INVALID_INPUT', message: error.message, exitCode: 1, cause: error });
    }
    throw error;
  }
}

/**
 * `attractor diff <run> [node[@visit]]`: what the run changed (from its start commit to its last), or what one stage
 * changed (its commit against its parent), as a git diff on stdout. Exit 0 (a stage or run that changed nothing says so on
 * stderr); 2 when the run works in place.
 */
export async function diffCommand(options: {
  readonly runDir: string;
  readonly at?: string;
  readonly stat?: boolean;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const run = await readRunDirectory(options.runDir, { cwd: io.cwd });
  const stage = options.at === undefined ? undefined : completedStage(run, options.at, options.runDir);
  if (stage !== undefined && stage.commit === undefined) {
    // A stage that changed nothing makes no commit (README "Workspaces"): its diff is empty, not a usage error.
    io.stderr.write(`Stage ${stage.nodeId}@${stage.visit} changed no file.\n`);
    return 0;
  }
  const commit = stage?.commit;
  const { diffRun } = await import('@attractor/workspace');
  const text = await workspaceErrors(() =>
    diffRun({
      record: run.checkpoint?.workspace,
      ...(commit === undefined ? {} : { commit }),
      ...(options.stat === undefined ? {} : { stat: options.stat }),
      color: io.color,
    }),
  );
  if (text !== '') io.stdout.write(`${text}\n`);
  // An empty screen reads as a broken command: say it on stderr, so that stdout stays a (here empty) diff.
  else io.stderr.write(`${options.at === undefined ? 'The run' : `Stage ${options.at}`} changed no file.\n`);
  return 0;
}

/**
 * The `stage.completed` event of stage `at` (`node[@visit]`, default the latest visit): its `commit` is absent when the
 * stage changed no file.
 */
function completedStage(run: RunDirectory, at: string, shown: string): StageCompletedEvent {
  const { node, visit } = parseForkPoint(at);
  const completions = run.events.filter(
    (event): event is StageCompletedEvent =>
      event.type === 'stage.completed' && event.nodeId === node && (event.branchPath?.length ?? 0) === 0,
  );
  const chosen =
    visit === undefined ? completions.at(-1) : completions.find((event) => event.visit === visit);
  if (chosen === undefined) {
    const visits = completions.map((event) => `${event.nodeId}@${event.visit}`);
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Run ${shown} has no completed stage ${at}${visits.length === 0 ? '' : `; it has ${visits.join(', ')}`}. Name a stage as node or node@visit (\`${cliCommand({})} inspect ${quoteArgument(shown)}\` lists them).`,
    });
  }
  if (chosen.commit === undefined && run.checkpoint?.workspace === undefined) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Stage ${chosen.nodeId}@${chosen.visit} of run ${shown} has no diff: the run works in place, so no stage commits are recorded.`,
    });
  }
  return chosen;
}

/**
 * `attractor apply <run> [--merge|--squash|--patch]`: brings the run's result into the checkout it started from (or
 * `--to`). Prints the files and exits 0 (also when the checkout has the run's changes already, saying so); exits 1,
 * changing nothing, when the checkout's changes are in the way.
 */
export async function applyCommand(options: {
  readonly runDir: string;
  readonly method: 'merge' | 'squash' | 'patch';
  readonly to?: string;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const run = await readRunDirectory(options.runDir, { cwd: io.cwd });
  const target = resolve(io.cwd, options.to ?? run.manifest.workdir);
  const { applyRun } = await import('@attractor/workspace');
  const result = await workspaceErrors(() =>
    applyRun({ record: run.checkpoint?.workspace, target, method: options.method }),
  );
  const shown = displayPath(target, io.cwd);
  if (result.files.length === 0) {
    io.stdout.write(`The run changed no file; nothing to apply to ${shown}.\n`);
    return 0;
  }
  if (result.alreadyApplied === true) {
    io.stdout.write(
      `The run's changes to ${result.files.join(', ')} are already in ${shown}; nothing was changed.\n`,
    );
    return 0;
  }
  const how =
    result.method === 'merge'
      ? `merged into ${shown} (commit ${result.commit?.slice(0, 12) ?? ''})`
      : result.method === 'squash'
        ? `staged in ${shown} (commit them with git commit)`
        : `written to ${shown} (not staged)`;
  io.stdout.write(
    `${result.files.length} file${result.files.length === 1 ? '' : 's'} ${how}:\n${result.files.map((file) => `  ${file}\n`).join('')}`,
  );
  return 0;
}

/**
 * `attractor clean [--runs-dir <dir>] [--branches] [--dry-run]`: removes the worktrees of finished runs of the runs
 * directory, and the worktrees and `attractor/*` branches of runs whose directory is gone (in the repositories of
 * those runs and of the current directory). Prints what it removed, and the branches it kept because their run is
 * not in the runs directory.
 */
export async function cleanCommand(options: {
  readonly runsDir?: string;
  readonly branches?: boolean;
  readonly dryRun?: boolean;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const runsDir = resolve(io.cwd, options.runsDir ?? DEFAULT_RUNS_DIR);
  const names = await readdir(runsDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const runs: CleanableRun[] = [];
  for (const name of names) {
    const run = await readRunDirectory(join(runsDir, name), { cwd: io.cwd }).catch(() => undefined);
    if (run === undefined) continue;
    const state = run.checkpoint?.state;
    const lock = await createFileRunStore({ logsRoot: run.logsRoot, createDirectory: false })
      .readLock()
      .catch(() => undefined);
    runs.push({
      runId: name,
      record: run.checkpoint?.workspace,
      finished: state !== undefined && state !== 'running' && lock === undefined,
    });
  }
  const { cleanWorkspaces } = await import('@attractor/workspace');
  const report = await workspaceErrors(() =>
    cleanWorkspaces({
      runs,
      repository: io.cwd,
      // A run of the default runs directory whose worktree is gone is not taken for deleted when another is cleaned.
      otherRunsDirectories: [resolve(io.cwd, DEFAULT_RUNS_DIR)].filter((directory) => directory !== runsDir),
      ...(options.branches === undefined ? {} : { branches: options.branches }),
      ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
    }),
  );
  const verb = options.dryRun === true ? 'Would remove' : 'Removed';
  if (report.worktrees.length === 0 && report.branches.length === 0) io.stdout.write('Nothing to clean.\n');
  for (const path of report.worktrees) io.stdout.write(`${verb} worktree ${displayPath(path, io.cwd)}\n`);
  for (const branch of report.branches) io.stdout.write(`${verb} branch ${branch}\n`);
  const shownRunsDir = displayPath(runsDir, io.cwd);
  for (const { branch, runDirectory } of report.kept) {
    io.stdout.write(
      runDirectory === undefined
        ? `Kept branch ${branch}: its run is not in ${shownRunsDir} and its run directory could not be found (give its runs directory: ${cliCommand({})} clean --runs-dir <dir>).\n`
        : `Kept branch ${branch}: its run directory ${displayPath(runDirectory, io.cwd)} is in another runs directory (${cliCommand({})} clean --runs-dir ${quoteArgument(displayPath(dirname(runDirectory), io.cwd))} cleans it).\n`,
    );
  }
  return 0;
}
