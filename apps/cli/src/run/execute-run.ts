import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import {
  CheckpointCorruptError,
  createFileRunStore,
  defaultLogsRoot,
  type Interviewer,
  type PipelineRun,
  type PipelineStartedEvent,
  ResumeError,
  RunDirectoryInUseError,
  RunLockedError,
  type RunResult,
  startForkedPipeline,
  startPipeline,
  startResumedPipeline,
  usageTotalsFromContext,
  type WorkspaceProvider,
} from '@attractor/engine';
import { parseForkPoint } from '@attractor/engine/internal';
import { AttractorError } from '@attractor/errors';
import { cliCommand, quoteArgument } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { type Colors, createColors } from '../colors.js';
import { type CliConfig, lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { createJsonDisplay } from '../display/json-display.js';
import { createLineDisplay } from '../display/line-display.js';
import { createResumeNote } from '../display/resume-note.js';
import type { RunDisplay, RunUsage, Verbosity } from '../display/run-display.js';
import { createTtyDisplay } from '../display/tty-display.js';
import { CliError } from '../errors/cli-error.js';
import { describeFsError, fsFaultFix, isFsFault } from '../errors/describe-fs-error.js';
import { readRunDirectory } from '../inspect/read-run-directory.js';
import { summarizeRun } from '../inspect/summarize-run.js';
import { displayPath, loadPipeline } from '../load-pipeline.js';
import { startTelemetry } from '../observability/start-telemetry.js';
import type { SetValue } from '../parse-options.js';
import {
  configBackend,
  mergeResumeOptions,
  readRecordedCliOptions,
  recordCliOptions,
  resolveBackend,
} from './backend-choice.js';
import { commitIdentityOf } from './commit-author.js';
import { createCliInterviewer } from './create-cli-interviewer.js';
import { formatResumeCommand } from './format-resume-command.js';
import { formatScriptKeyWarning } from './format-script-key-warning.js';
import { formatSecretNodeWarning } from './format-secret-node-warning.js';
import { EXIT_INTERRUPTED, installInterruptHandlers } from './install-interrupt-handlers.js';
import { isInsideGitRepository } from './is-inside-git-repository.js';
import { readRunInputs } from './read-run-inputs.js';
import { resolveSandbox } from './resolve-sandbox.js';
import type { RunCliOptions } from './run-cli-options.js';
import type { RunServicesFactory } from './run-services.js';
import { workspaceModeFromEnv } from './workspace-mode-from-env.js';

/** Options of {@link executeRun}. */
export interface ExecuteRunOptions {
  /** A new run of a DOT file, or a resume of a run directory. */
  readonly mode:
    | { readonly kind: 'run'; readonly file: string }
    | { readonly kind: 'resume'; readonly runDir: string }
    /** A new run from the checkpoint after stage `at` (`node[@visit]`) of the run in `runDir`. */
    | { readonly kind: 'fork'; readonly runDir: string; readonly at: string };
  readonly options: RunCliOptions;
  readonly io: CliIo;
  readonly createServices: RunServicesFactory;
  /** Install SIGINT/SIGTERM handlers on this process (bin.ts: true; in-process tests: false). Default: true. */
  readonly handleSignals?: boolean;
  /**
   * Where a new run's directory goes when `--logs-dir` is not given: `<runsDirectory>/<UTC time>-<graph>` (`--store
   * <dir>`). Default: `./.attractor/runs`.
   */
  readonly runsDirectory?: string;
}

/**
 * `attractor run` and `attractor resume`: loads and lints the pipeline, checks the backend configuration, starts
 * (or resumes) the run with a display chosen for the output, handles Ctrl-C, prints the summary, and resolves
 * with the exit code: 0 success, 1 the pipeline failed, 130 interrupted.
 *
 * @throws {CliError} (exit 2) for bad input: a missing file, lint errors, a missing API key, a run directory that
 *   cannot be resumed.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<number> {
  const { io, mode } = options;
  const colors = createColors(io.color && options.options.json !== true);
  const errorColors = createColors(io.color);
  let cliOptions = options.options;
  let logsRoot: string;
  let pipelinePath: string;
  let workdir: string;
  let initialContext: Readonly<Record<string, SetValue>> | undefined;
  let sourceRoot = '';
  /** `resume`: the run's legs before this one, as `inspect` counts them (route and duration of its events). */
  let earlier: { readonly stageCount: number; readonly durationMs: number } | undefined;
  /** `resume`: the commit the run's workspace started from (its record's `base`), for the `Workspace:` line. */
  let runBase: string | undefined;

  if (mode.kind === 'run') {
    pipelinePath = mode.file;
    workdir = resolve(io.cwd, cliOptions.workdir ?? '.');
    initialContext = cliOptions.set;
    logsRoot = ''; // chosen once the graph name is known
  } else {
    const run = await readRunDirectory(mode.runDir, { cwd: io.cwd });
    sourceRoot = run.logsRoot;
    if (mode.kind === 'resume') {
      const summary = summarizeRun(run);
      earlier = { stageCount: summary.route.length, durationMs: summary.durationMs };
      const base = run.checkpoint?.workspace?.base;
      runBase = typeof base === 'string' ? base : undefined;
    }
    logsRoot = run.logsRoot;
    const recorded = await readRecordedCliOptions(logsRoot);
    cliOptions = mergeResumeOptions(cliOptions, recorded);
    const source = cliOptions.graph ?? run.manifest.source_path;
    if (source === undefined) {
      throw new CliError({
        code: 'CLI_USAGE',
        message: `${mode.runDir} does not record its DOT file. Pass it with --graph <file.dot>.`,
      });
    }
    pipelinePath = cliOptions.graph === undefined ? displayPath(source, io.cwd) : source;
    workdir = resolve(io.cwd, cliOptions.workdir ?? run.manifest.workdir);
  }

  const workdirStats = statSync(workdir, { throwIfNoEntry: false });
  if (workdirStats === undefined) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `Working directory ${displayPath(workdir, io.cwd)} not found. Pass an existing directory with --workdir.`,
    });
  }
  if (!workdirStats.isDirectory()) {
    // Every tool command would fail to start in it (spawn ENOTDIR), each retry again.
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Working directory ${displayPath(workdir, io.cwd)} is a file, not a directory. Pass the directory the tool commands run in with --workdir (e.g. ${displayPath(dirname(workdir), io.cwd)}).`,
    });
  }
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(cliOptions.config === undefined ? {} : { path: cliOptions.config }),
  });
  // Config defaults fill in what neither the command line nor the run's recorded options set.
  cliOptions = {
    ...cliOptions,
    ...(cliOptions.model === undefined && config.defaults.model !== undefined
      ? { model: config.defaults.model }
      : {}),
    ...(cliOptions.provider === undefined && config.defaults.provider !== undefined
      ? { provider: config.defaults.provider }
      : {}),
    ...(cliOptions.prices === undefined && config.defaults.prices !== undefined
      ? { prices: config.defaults.prices }
      : {}),
  };
  const workspaceModes = workspaceModesOf({ cliOptions, config, mode, io });
  // `auto` (the default) works in place outside a git repository, so a new run there has no git workspace either.
  const autoIsInPlace = mode.kind === 'run' && !(await isInsideGitRepository(workdir));
  const pipeline = await loadPipeline({
    path: pipelinePath,
    io,
    colors: errorColors,
    ...lintOptionsOf(config),
    ...(cliOptions.strict === undefined ? {} : { strict: cliOptions.strict }),
    // How parallel branches' files come together matters only in a git workspace.
    inapplicable: (diagnostic, graph) =>
      diagnostic.rule === 'join_merge' &&
      isPlainWorkspace(
        workspaceModes.mode ?? graph.attributes.workspace?.value ?? workspaceModes.defaultMode ?? 'auto',
        autoIsInPlace,
      ),
  });
  const backend = configBackend(cliOptions, config) ?? resolveBackend(cliOptions, io.env, io.cwd);
  // Refused here, before the run directory exists, when Bubblewrap is missing or cannot run.
  const sandbox = await resolveSandbox({ kind: cliOptions.sandbox ?? config.defaults.sandbox, env: io.env });
  const secretNodeWarning = formatSecretNodeWarning({
    env: io.env,
    secretNames: options.options.secret ?? [],
    nodeIds: pipeline.graph.nodes.keys(),
  });
  if (secretNodeWarning !== undefined) io.stderr.write(`${secretNodeWarning}\n`);

  // Checked before the run directory is made: bad inputs leave nothing behind.
  const inputs =
    mode.kind === 'run'
      ? await readRunInputs({
          graph: pipeline.graph,
          pipelinePath: resolve(io.cwd, pipeline.path),
          io,
          ...(cliOptions.input === undefined ? {} : { input: cliOptions.input }),
          ...(cliOptions.inputsFile === undefined ? {} : { inputsFile: cliOptions.inputsFile }),
          ...(cliOptions.set === undefined ? {} : { set: cliOptions.set }),
        })
      : undefined;
  if (mode.kind === 'run' || mode.kind === 'fork') {
    logsRoot =
      cliOptions.logsDir === undefined
        ? freshLogsRoot(pipeline.graph, io.cwd, options.runsDirectory)
        : resolve(io.cwd, cliOptions.logsDir);
    if (existsSync(join(logsRoot, 'checkpoint.json'))) {
      const shown = displayPath(logsRoot, io.cwd);
      throw new CliError({
        code: 'CLI_USAGE',
        message: `Run directory ${shown} already holds a run. Continue it with \`${cliCommand(io.env)} resume ${quoteArgument(shown)}\`, or pass another --logs-dir.`,
      });
    }
  }
  const verbosity: Verbosity =
    cliOptions.quiet === true ? 'quiet' : cliOptions.verbose === true ? 'verbose' : 'normal';
  const display = chooseDisplay(io, cliOptions, colors, verbosity);

  let consoleInterviewer: Interviewer | undefined;
  // The config's interviewer answers the gates unless the command line does (--answer, --auto-approve).
  const answered = (cliOptions.answer ?? []).length > 0 || cliOptions.autoApprove === true;
  const pluginInterviewer =
    answered || config.defaults.interviewer === undefined
      ? undefined
      : config.interviewers.get(config.defaults.interviewer);
  const cliInterviewer = createCliInterviewer({
    answers: cliOptions.answer ?? [],
    autoApprove: cliOptions.autoApprove === true,
    display,
    get console() {
      return consoleInterviewer;
    },
  });
  const interviewer = pluginInterviewer ?? cliInterviewer;
  // A resumed or forked run with a script continues each node's steps after the calls it already made.
  const simulationCalls =
    backend.kind === 'simulate' && backend.scriptPath !== undefined && mode.kind !== 'run'
      ? await readSimulationCalls(
          mode.kind === 'fork' ? { from: sourceRoot, at: mode.at } : { from: logsRoot },
        )
      : undefined;
  // Before the run directory exists: the services check the rest of the user's input (the --simulate-script file,
  // the backend options), so a mistake leaves no half-made run directory that inspect and resume would reject.
  const services = await options.createServices({
    backend,
    graph: pipeline.graph,
    interviewer,
    workdir,
    stdin: io.stdin,
    stdout: io.stdout as unknown as Writable,
    env: io.env,
    handlers: config.handlers,
    mcpServers: config.mcpServers,
    ...(simulationCalls === undefined ? {} : { simulationCalls }),
  });
  consoleInterviewer = services.console;
  if (services.simulationScript !== undefined) {
    const warning = formatScriptKeyWarning({
      scriptFile: displayPath(services.simulationScript.path, io.cwd),
      check: services.simulationScript.check,
      colors: errorColors,
      displayPath: (path) => displayPath(path, io.cwd),
    });
    if (warning !== undefined) io.stderr.write(`${warning}\n`);
  }
  if (mode.kind === 'run' || mode.kind === 'fork') {
    try {
      await mkdir(logsRoot, { recursive: true });
      await recordCliOptions(logsRoot, cliOptions, io.cwd);
    } catch (error) {
      services.dispose?.();
      throw runDirectoryError(error, displayPath(logsRoot, io.cwd), cliOptions.logsDir !== undefined);
    }
  }
  const shownRoot = displayPath(logsRoot, io.cwd);
  // Asked when printed: the --answer values no gate took yet go with it, or the resumed run stops at the gate.
  const resumeCommand = (runDir = shownRoot): string =>
    formatResumeCommand({
      env: io.env,
      runDir,
      unusedAnswers: cliInterviewer.unusedAnswers(),
      secretValues: io.secretValues ?? [],
    });
  // Printed once the engine accepted the command (its first event, or its result): a refused fork or resume
  // (no such stage, a finished run) names no run directory.
  let announced = false;
  const announce = (): void => {
    if (announced) return;
    announced = true;
    if (cliOptions.json !== true) {
      io.stdout.write(`${colors.dim(`Run directory: ${shownRoot}`)}\n`);
      if (workspaceLine !== '') io.stdout.write(`${colors.dim(workspaceLine)}\n`);
    } else {
      io.stderr.write(`Run directory: ${shownRoot}\n`);
      if (workspaceLine !== '') io.stderr.write(`${workspaceLine}\n`);
    }
  };

  const workspace = await createWorkspace({ cliOptions, config, modes: workspaceModes, io });
  let workspaceLine = '';

  let legStageCount = 0;
  const resumeNote = createResumeNote();
  const controller = new AbortController();
  const observed = await startTelemetry({
    cli: cliOptions,
    env: io.env,
    prometheus: false,
    serviceName: 'attractor',
  });
  const common = {
    graph: pipeline.graph,
    registry: services.registry,
    backend: services.backend,
    interviewer,
    workdir,
    abortSignal: controller.signal,
    secretValues: [...services.secretValues, ...(io.secretValues ?? [])],
    workspace,
    onEvent: (event: Parameters<RunDisplay['onEvent']>[0]) => {
      // -q prints only the run directory, warnings, errors and the summary.
      if (
        event.type === 'pipeline.started' &&
        (event.branchPath?.length ?? 0) === 0 &&
        verbosity !== 'quiet'
      ) {
        workspaceLine = describeWorkspace({ event, workdir, cwd: io.cwd, startedFrom: runBase });
      }
      announce();
      // inspect's route: the top-level stage completions (a parallel branch's or a child run's are not stages here).
      if (event.type === 'stage.completed' && (event.branchPath?.length ?? 0) === 0) legStageCount += 1;
      resumeNote.onEvent(event);
      display.onEvent(event);
    },
    ...(cliOptions.maxSteps === undefined ? {} : { maxSteps: cliOptions.maxSteps }),
    ...(cliOptions.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: cliOptions.maxBudgetUsd }),
    ...(cliOptions.maxTokens === undefined ? {} : { maxTokens: cliOptions.maxTokens }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(observed.telemetry === undefined ? {} : { telemetry: observed.telemetry }),
  };
  let run: PipelineRun | Promise<PipelineRun>;
  if (mode.kind === 'fork') {
    run = startForkedPipeline({
      ...common,
      from: sourceRoot,
      at: mode.at,
      logsRoot,
      sourcePath: resolve(io.cwd, pipeline.path),
      ...(cliOptions.set === undefined ? {} : { context: cliOptions.set }),
    });
  } else if (mode.kind === 'run') {
    run = startPipeline({
      ...common,
      logsRoot,
      sourcePath: resolve(io.cwd, pipeline.path),
      ...(initialContext === undefined ? {} : { context: initialContext }),
      ...(inputs === undefined ? {} : { inputs }),
    });
  } else {
    run = startResumedPipeline({
      ...common,
      logsRoot,
      ...(cliOptions.from === undefined ? {} : { from: cliOptions.from }),
    });
  }

  const releaseSignals =
    options.handleSignals === false
      ? () => {}
      : installInterruptHandlers({ controller, display, io, resumeCommand, colors: errorColors });
  try {
    const result = await (await run).result;
    announce();
    const note = resumeNote.text();
    display.finish({
      status: result.status,
      ...(result.failureReason === undefined ? {} : { failureReason: result.failureReason }),
      durationMs: result.durationMs,
      logsRoot: displayPath(result.logsRoot, io.cwd),
      resumeCommand: `${resumeCommand(displayPath(result.logsRoot, io.cwd))}${raisedLimit(result)}`,
      // A run stopped by a limit resumes with a bigger one (raisedLimit): nothing failed to run again.
      ...(note === undefined || raisedLimit(result) !== '' ? {} : { resumeNote: note }),
      completedNodes: result.completedNodes,
      ...(result.output === undefined ? {} : { output: result.output }),
      // A loop_restart continued the run in another directory: that run has no earlier legs to add.
      ...(earlier === undefined || result.logsRoot !== logsRoot
        ? {}
        : {
            resumed: {
              stagesThisTime: legStageCount,
              stagesInRun: earlier.stageCount + legStageCount,
              runDurationMs: earlier.durationMs + result.durationMs,
            },
          }),
      ...(mode.kind !== 'fork' || result.logsRoot !== logsRoot
        ? {}
        : { forked: { stagesThisTime: legStageCount, stagesInRoute: result.completedNodes.length } }),
      ...usageOf(result.context),
    });
    const unused = cliInterviewer.unusedAnswers();
    if (result.status === 'success' && unused.length > 0) {
      io.stderr.write(
        `${errorColors.yellow('warning')}: ${unused.length === 1 ? '1 --answer value was' : `${unused.length} --answer values were`} not used (${unused.map((answer) => JSON.stringify(answer)).join(', ')}): the run asked fewer questions. Each --answer answers one question, in order.\n`,
      );
    }
    return result.status === 'success' ? 0 : result.status === 'cancelled' ? EXIT_INTERRUPTED : 1;
  } catch (error) {
    display.pause();
    if (
      ResumeError.isInstance(error) ||
      CheckpointCorruptError.isInstance(error) ||
      RunDirectoryInUseError.isInstance(error) ||
      RunLockedError.isInstance(error)
    ) {
      // A fork refused before it started (no such stage) leaves no run directory behind: only ours was in it.
      if (mode.kind === 'fork' && ResumeError.isInstance(error)) await removeUnstartedRunDirectory(logsRoot);
      throw new CliError({ code: 'CLI_INVALID_INPUT', message: refusalMessage(error, io), cause: error });
    }
    if (AttractorError.isInstance(error) && error.code === 'WORKSPACE_REFUSED') {
      // The workspace could not be opened (git asked outside a repository): nothing ran.
      if (mode.kind !== 'resume') await removeUnstartedRunDirectory(logsRoot);
      throw new CliError({ code: 'CLI_INVALID_INPUT', message: error.message, cause: error });
    }
    if (AttractorError.isInstance(error) && error.code === 'GIT_COMMAND_FAILED') {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        exitCode: 1,
        message: `The run stopped: the workspace's ${error.message}. Fix the repository, then resume with: ${resumeCommand()}`,
        cause: error,
      });
    }
    if (isFsFault(error)) {
      // Disk full, read-only or unreadable run directory mid-run: one line, where and why, and how to go on.
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        exitCode: 1,
        message: `The run stopped: cannot write ${error.path ?? shownRoot}: ${describeFsError(error)}. ${fsFaultFix(error)}, then resume with: ${resumeCommand()}`,
        cause: error,
      });
    }
    throw error;
  } finally {
    releaseSignals();
    services.dispose?.();
    // The spans of the run leave before the process does.
    await observed.shutdown();
  }
}

/**
 * The run's workspace provider (README "Workspaces"): `--workspace` over the graph's `workspace` attribute over the
 * config's `defaults.workspace` over `$ATTRACTOR_WORKSPACE`, else `auto`; `--workspace-root` or the config's `workspaceRoot`; `--commit-author`.
 * A resume or fork reopens what the run's checkpoint records. Loads `@attractor/workspace` only here.
 */
async function createWorkspace(options: {
  readonly cliOptions: RunCliOptions;
  readonly config: CliConfig;
  readonly modes: WorkspaceModes;
  readonly io: CliIo;
}): Promise<WorkspaceProvider> {
  const { cliOptions, config, modes, io } = options;
  const { createWorkspaceProvider } = await import('@attractor/workspace');
  const identity = await commitIdentityOf(
    cliOptions.commitAuthor ?? config.defaults.commitAuthor,
    cliOptions.commitAuthor === undefined ? "The config's defaults.commitAuthor" : '--commit-author',
  );
  const root = cliOptions.workspaceRoot ?? config.defaults.workspaceRoot;
  return createWorkspaceProvider({
    ...(modes.mode === undefined ? {} : { mode: modes.mode }),
    ...(modes.defaultMode === undefined ? {} : { defaultMode: modes.defaultMode }),
    ...(root === undefined ? {} : { root: resolve(io.cwd, root) }),
    ...(identity === undefined ? {} : { identity }),
  });
}

/** The workspace mode settings of a run, above and below the graph's `workspace` attribute. */
interface WorkspaceModes {
  /** `--workspace`, over the graph's attribute; a resume or fork reopens what its checkpoint records instead. */
  readonly mode?: WorkspaceModeSetting;
  /** The config's `defaults.workspace`, else `$ATTRACTOR_WORKSPACE`, under the graph's attribute. */
  readonly defaultMode?: WorkspaceModeSetting;
}

type WorkspaceModeSetting = NonNullable<ReturnType<typeof workspaceModeFromEnv>>;

/** Reads {@link WorkspaceModes} from the command line, the config file and the environment. */
function workspaceModesOf(options: {
  readonly cliOptions: RunCliOptions;
  readonly config: CliConfig;
  readonly mode: ExecuteRunOptions['mode'];
  readonly io: CliIo;
}): WorkspaceModes {
  const { cliOptions, config, io } = options;
  const mode = options.mode.kind === 'run' ? cliOptions.workspace : undefined;
  const defaultMode = config.defaults.workspace ?? workspaceModeFromEnv(io.env);
  return {
    ...(mode === undefined ? {} : { mode }),
    ...(defaultMode === undefined ? {} : { defaultMode }),
  };
}

/**
 * Whether a workspace mode setting names one without git worktrees: `in-place`, `copy`, or `auto` when it resolves
 * to in-place (a new run outside any git repository).
 */
function isPlainWorkspace(setting: string, autoIsInPlace: boolean): boolean {
  const mode = setting.trim();
  return mode === 'in-place' || mode === 'copy' || (mode === 'auto' && autoIsInPlace);
}

/**
 * The console line naming the run's workspace: its worktree and branch, or the directory it works in in place. A new
 * run (or fork) says the commit it starts from; a resume the commit it continues at and the one the run started from
 * (`startedFrom`, the workspace record's `base`), when they differ.
 */
function describeWorkspace(options: {
  readonly event: PipelineStartedEvent;
  readonly workdir: string;
  readonly cwd: string;
  readonly startedFrom: string | undefined;
}): string {
  const { cwd, startedFrom } = options;
  const workspace = options.event.workspace;
  if (workspace === undefined)
    return `Workspace: in place, ${displayPath(options.workdir, cwd)} (files change there directly)`;
  const where = displayPath(workspace.workdir, cwd);
  const commit = workspace.commit.slice(0, 12);
  const revision =
    startedFrom === undefined || startedFrom === workspace.commit
      ? `from ${commit}`
      : `at ${commit}, started from ${startedFrom.slice(0, 12)}`;
  return workspace.branch === undefined
    ? `Workspace: ${workspace.mode}, ${where}`
    : `Workspace: ${workspace.mode} worktree ${where} on branch ${workspace.branch} (${revision})`;
}

/**
 * The message of an engine refusal in CLI words: a finished run's `already_completed` names the `--from` option
 * (the engine's message names the library's `from` option); every other refusal keeps the engine's message.
 */
function refusalMessage(error: Error, io: CliIo): string {
  if (!ResumeError.isInstance(error) || error.reason !== 'already_completed') return error.message;
  const shown = displayPath(error.logsRoot, io.cwd);
  return `Cannot resume ${shown}: the run already completed successfully; pass --from <node> to re-run from a node (\`${cliCommand(io.env)} resume ${quoteArgument(shown)} --from <node>\`).`;
}

/**
 * The user error for a run directory that cannot be made (`--logs-dir` names a file, a path under a file, or a
 * place without write permission): says which path and what to do. Other errors pass through unchanged.
 */
function runDirectoryError(error: unknown, shown: string, fromOption: boolean): unknown {
  if (!isFsFault(error)) return error;
  return new CliError({
    code: 'CLI_INVALID_INPUT',
    message: `Cannot create the run directory ${shown}: ${describeFsError(error)}. ${fromOption ? 'Pass --logs-dir a directory you can write to (it is created if missing).' : 'Run from a directory you can write to, or pass --logs-dir.'}`,
    cause: error,
  });
}

function chooseDisplay(io: CliIo, options: RunCliOptions, colors: Colors, verbosity: Verbosity): RunDisplay {
  if (options.json === true)
    return createJsonDisplay({ stdout: io.stdout, stderr: io.stderr, colors: createColors(io.color) });
  // A terminal of zero rows (a pty nobody sized) cannot show a live area.
  const rows = (io.stdout as { readonly rows?: number }).rows;
  if (io.stdout.isTTY === true && verbosity !== 'quiet' && rows !== 0) {
    return createTtyDisplay({ stdout: io.stdout as NodeJS.WriteStream, colors, verbosity });
  }
  return createLineDisplay({ stdout: io.stdout, colors, verbosity });
}

/** `./.attractor/runs/<UTC timestamp>-<graph name>/`, with `-2`, `-3`... when two runs start in the same second. */
function freshLogsRoot(
  graph: Parameters<typeof defaultLogsRoot>[0]['graph'],
  cwd: string,
  runsDirectory: string | undefined,
): string {
  const name = defaultLogsRoot({ graph, nowMs: Date.now() });
  const base = runsDirectory === undefined ? resolve(cwd, name) : resolve(cwd, runsDirectory, basename(name));
  let candidate = base;
  for (let suffix = 2; existsSync(candidate); suffix += 1) candidate = `${base}-${suffix}`;
  return candidate;
}

/**
 * The option that raises the limit the run stopped at, else `''`: resume reuses the recorded limits, so the printed
 * resume command must raise it or the resumed run stops at once again. ` --max-steps <2n>` for `max_steps` n;
 * ` --max-budget-usd <spent + limit>` (rounded up to the cent) or ` --max-tokens <spent + limit>` for a budget: as
 * much again as the budget allowed, beyond what the run spent.
 */
function raisedLimit(result: Pick<RunResult, 'failureReason' | 'budgetStop'>): string {
  const stop = result.budgetStop;
  if (stop !== undefined) {
    return stop.budget === 'max_budget_usd'
      ? ` --max-budget-usd ${Math.ceil((stop.spent + stop.limit) * 100 - 1e-9) / 100}`
      : ` --max-tokens ${Math.ceil(stop.spent + stop.limit)}`;
  }
  const limit = /^max_steps \((\d+)\) reached/.exec(result.failureReason ?? '')?.[1];
  return limit === undefined ? '' : ` --max-steps ${Number(limit) * 2}`;
}

/**
 * The run's LLM usage from the totals the engine keeps in the context (`usage.total.*`: every model call, parallel
 * branches and child runs included), when any model call was made.
 */
function usageOf(context: { get(key: string): unknown }): { usage?: RunUsage } {
  const totals = usageTotalsFromContext((key) => context.get(key));
  if (totals === undefined) return {};
  return {
    usage: {
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cachedInputTokens: totals.cachedInputTokens,
      reasoningTokens: totals.reasoningTokens,
      costUsd: totals.costUsd,
      costComplete: totals.costComplete,
    },
  };
}

/**
 * The calls each node made in the run directory `from` (see `readSimulationCalls` of `@attractor/handlers`): all
 * of them for a resume, those up to the stage `at` (`node[@visit]`) for a fork. Loads the handlers package only here
 * (run-services keeps it out of the other commands).
 */
async function readSimulationCalls(options: {
  readonly from: string;
  readonly at?: string;
}): Promise<ReadonlyMap<string, number>> {
  const handlers = await import('@attractor/handlers');
  const openRun = (root: string) => createFileRunStore({ logsRoot: root, createDirectory: false });
  const store = openRun(options.from);
  try {
    return await handlers.readSimulationCalls({
      store,
      openRun,
      // The stage the engine forks after, read by the engine's own rule.
      ...(options.at === undefined ? {} : { until: parseForkPoint(options.at) }),
    });
  } finally {
    await store.close();
  }
}

/** Removes a run directory that holds nothing but this command's `cli-options.json` (a run that never started). */
async function removeUnstartedRunDirectory(logsRoot: string): Promise<void> {
  const entries = await readdir(logsRoot).catch(() => undefined);
  if (entries?.every((name) => name === 'cli-options.json')) {
    await rm(logsRoot, { recursive: true, force: true });
  }
}
