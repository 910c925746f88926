/**
 * The CLI on a shared queue and store: `attractor run file.dot --queue [--wait]`, `resume` and `fork` of a queued run,
 * and `attractor answer <run> <key>` (`attractor runs`: runs-command.ts).
 */
import { resolve } from 'node:path';
import { inputContextValues, type JsonValue, type PipelineEvent } from '@attractor/engine';
import { legDurationMs } from '@attractor/engine/internal';
import type { QueuedRun, RunQueue } from '@attractor/worker';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { type Colors, createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { loadPipeline } from '../load-pipeline.js';
import { startTelemetry } from '../observability/start-telemetry.js';
import { readRunInputs } from '../run/read-run-inputs.js';
import type { RunCliOptions } from '../run/run-cli-options.js';
import {
  connectQueueOrExplain,
  type OpenedCatalog,
  openRunCatalog,
  queueHintOption,
  requireQueueUrl,
  requireStoreUrl,
} from '../shared/shared-locations.js';

/** `run` options that matter on a queue. */
export interface QueueRunCliOptions extends RunCliOptions {
  /** `--queue [url]`: enqueue instead of running here. */
  readonly queue?: string | boolean;
  /** `--wait`: follow the queued run until it ends. */
  readonly wait?: boolean;
  /** `--store <url>`: the shared run store (for `--wait`). */
  readonly store?: string;
}

/**
 * Refuses `--answer` and `--auto-approve` for a run a worker executes: its gates wait in the store for
 * `attractor answer`, so the answers given here would be dropped without a word.
 * @throws {CliError} `CLI_INVALID_INPUT` naming the option and what to do instead.
 */
function refuseLocalAnswers(
  cli: { readonly answer?: readonly string[]; readonly autoApprove?: boolean },
  io: CliIo,
) {
  const option =
    cli.answer !== undefined && cli.answer.length > 0
      ? '--answer'
      : cli.autoApprove === true
        ? '--auto-approve'
        : undefined;
  if (option === undefined) return;
  throw new CliError({
    code: 'CLI_INVALID_INPUT',
    message: `${option} does not reach a queued run: a worker executes it, and its human gates wait for \`${cliCommand(io.env)} answer <run> <key>\` (or the gate's timeout default). Leave ${option} out, or run without --queue.`,
  });
}

/** How often `--wait` reads new events from the store, in milliseconds. */
const FOLLOW_INTERVAL_MS = 250;

/**
 * `attractor run file.dot --queue`: lints the pipeline like a local run, enqueues it and prints the run id. With
 * `--wait`, follows its events from the store until it ends and exits like a local run (0 success, 1 failed, 130
 * cancelled).
 */
export async function enqueueCommand(options: {
  readonly file: string;
  readonly options: QueueRunCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const cli = options.options;
  const colors = createColors(io.color && cli.json !== true);
  refuseLocalAnswers(cli, io);
  const queueUrl = requireQueueUrl(cli.queue, io, '`attractor run --queue`');
  const storeUrl =
    cli.wait === true ? requireStoreUrl(cli.store, io, '`attractor run --queue --wait`') : undefined;
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(cli.config === undefined ? {} : { path: cli.config }),
  });
  const pipeline = await loadPipeline({
    path: options.file,
    io,
    colors: createColors(io.color),
    ...lintOptionsOf(config),
    ...(cli.strict === undefined ? {} : { strict: cli.strict }),
  });
  const set = cli.set as Readonly<Record<string, JsonValue>> | undefined;
  // Checked here and carried as the input.<name> keys of the initial context, which the worker's engine reads.
  const inputs = await readRunInputs({
    graph: pipeline.graph,
    pipelinePath: resolve(io.cwd, pipeline.path),
    io,
    ...(cli.input === undefined ? {} : { input: cli.input }),
    ...(cli.inputsFile === undefined ? {} : { inputsFile: cli.inputsFile }),
    ...(set === undefined ? {} : { set }),
  });
  const context: Readonly<Record<string, JsonValue>> | undefined =
    Object.keys(inputs).length === 0 ? set : { ...set, ...inputContextValues(inputs) };
  // With --otel, the enqueue is a span and the run's trace (continued by each worker) starts here.
  const observed = await startTelemetry({
    cli: cli,
    env: io.env,
    prometheus: false,
    serviceName: 'attractor',
  });
  const queue = await connectQueueOrExplain(queueUrl, io, observed.telemetry?.tracer).catch(
    async (error: unknown) => {
      await observed.shutdown();
      throw error;
    },
  );
  try {
    const runId = await queue
      .enqueueRun({
        source: pipeline.source,
        filename: resolve(io.cwd, options.file),
        graphName: pipeline.graph.id,
        ...(context === undefined ? {} : { context }),
        options: backendOptionsOf(cli, io.cwd),
      })
      .catch(async (error: unknown) => {
        throw await asCliInputError(error);
      });
    io.stdout.write(`${runId}\n`);
    if (storeUrl === undefined) return 0;
    const catalog = await openRunCatalog(storeUrl, io);
    try {
      return await followRun({
        catalog,
        queue,
        runId,
        io,
        colors,
        json: cli.json === true,
        queueOption: queueHintOption(cli.queue, io),
      });
    } finally {
      await catalog.close();
    }
  } finally {
    await queue.close();
    await observed.shutdown();
  }
}

/** The options a worker needs to build the run's backend (no secrets: they stay in the workers' environment). */
function backendOptionsOf(cli: RunCliOptions, cwd: string): Readonly<Record<string, JsonValue>> {
  const picked: Record<string, JsonValue> = {};
  if (cli.simulate !== undefined) picked.simulate = cli.simulate;
  if (cli.simulateScript !== undefined) picked.simulateScript = resolve(cwd, cli.simulateScript);
  if (cli.dryRun !== undefined) picked.dryRun = cli.dryRun;
  if (cli.model !== undefined) picked.model = cli.model;
  if (cli.provider !== undefined) picked.provider = cli.provider;
  if (cli.baseUrl !== undefined) picked.baseUrl = cli.baseUrl;
  if (cli.prices !== undefined) picked.prices = resolve(cwd, cli.prices);
  if (cli.backend !== undefined) picked.backend = JSON.parse(JSON.stringify(cli.backend)) as JsonValue;
  if (cli.agentPermissions !== undefined) picked.agentPermissions = cli.agentPermissions;
  if (cli.maxSteps !== undefined) picked.maxSteps = cli.maxSteps;
  // The worker that executes the run gives it this workspace (its own repository or --workspace-remote's).
  if (cli.workspace !== undefined) picked.workspace = cli.workspace;
  return picked;
}

/**
 * Prints a queued run's events as the store receives them, until the run ends; says so once while it waits at a
 * gate. Resolves with the exit code of a local run.
 */
async function followRun(options: {
  readonly catalog: OpenedCatalog;
  readonly queue: RunQueue;
  readonly runId: string;
  readonly io: CliIo;
  readonly colors: Colors;
  readonly json: boolean;
  /** Print events after this sequence number only. Default: 0 (all). */
  readonly afterSeq?: number;
  /** What the printed `answer` and `resume` commands add to reach this queue (see `queueHintOption`). */
  readonly queueOption: string;
}): Promise<number> {
  const { io, colors, runId, queueOption } = options;
  const resumeHint = () =>
    io.stderr.write(`resume with: ${cliCommand(io.env)} resume ${runId}${queueOption}\n`);
  const store = options.catalog.open(runId);
  let lastSeq = options.afterSeq ?? 0;
  let waitingAt: string | undefined;
  // Milliseconds the run executed in legs that ended before the current one (suspended at a gate, failed, resumed).
  let earlierLegsMs = 0;
  while (true) {
    const events = (await store.readEvents().catch(() => [] as PipelineEvent[])).filter(
      (event) => event.seq > lastSeq,
    );
    let ended: number | undefined;
    for (const event of events) {
      lastSeq = event.seq;
      io.stdout.write(
        options.json ? `${JSON.stringify(event)}\n` : formatEvent(event, colors, earlierLegsMs),
      );
      earlierLegsMs += legDurationMs(event) ?? 0;
      if (event.type === 'pipeline.completed') ended = 0;
      if (event.type === 'pipeline.failed') ended = 1;
    }
    const queued = await options.queue.readRun(runId);
    if (ended !== undefined && (queued === undefined || queued.state !== 'running')) {
      if (ended !== 0) resumeHint();
      return ended;
    }
    if (queued?.state === 'cancelled') {
      io.stderr.write(`run ${runId} was cancelled${queued.error === undefined ? '' : `: ${queued.error}`}\n`);
      return 130;
    }
    if ((queued?.state === 'fail' || queued?.state === 'success') && events.length === 0) {
      if (queued.state === 'success') return 0;
      io.stderr.write(
        `${colors.red('error:')} run ${runId} failed${queued.error === undefined ? '' : `: ${queued.error}`}\n`,
      );
      resumeHint();
      return 1;
    }
    if (queued?.state === 'waiting' && queued.question !== undefined && waitingAt !== queued.question.id) {
      waitingAt = queued.question.id;
      io.stderr.write(
        `run ${runId} waits at gate "${queued.question.stage}": ${queued.question.text}\n  options: ${describeOptions(queued)}\n  answer with: ${cliCommand(io.env)} answer ${runId} <key>${queueOption}${queued.deadlineAt === undefined ? '' : ` (before ${queued.deadlineAt}, else the default applies)`}\n`,
      );
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, FOLLOW_INTERVAL_MS));
  }
}

function describeOptions(run: QueuedRun): string {
  const question = run.question;
  if (question === undefined) return '';
  if (question.type === 'freeform') return 'any text';
  if (question.type !== 'multiple_choice') return 'yes, no';
  return question.options.map((option) => `${option.key} (${option.label})`).join(', ');
}

/** One event as `--wait` prints it; a completed run's time counts the legs before this one (`earlierLegsMs`). */
function formatEvent(event: PipelineEvent, colors: Colors, earlierLegsMs: number): string {
  switch (event.type) {
    case 'pipeline.started':
      return event.forkedFrom === undefined
        ? `${colors.bold(event.resumed ? 'resumed' : 'started')} ${event.name}\n`
        : `${colors.bold('forked')} ${event.name} from ${event.forkedFrom.runId} at ${event.forkedFrom.node}@${event.forkedFrom.visit}\n`;
    case 'stage.started':
      return `  ${colors.cyan('▶')} ${event.nodeId}\n`;
    case 'stage.completed':
      return `  ${event.status === 'fail' ? colors.red('✗') : colors.green('✓')} ${event.nodeId} ${event.status}${event.failureReason === undefined ? '' : ` (${event.failureReason})`}\n`;
    case 'pipeline.completed':
      return `${colors.green('success')} in ${Math.round(earlierLegsMs + event.durationMs)} ms\n`;
    case 'pipeline.failed':
      return `${colors.red('failed')}: ${event.error}\n`;
    default:
      return '';
  }
}

function graphNameOf(run: QueuedRun): string {
  return /digraph\s+("?)([A-Za-z0-9_.-]+)\1/.exec(run.request.source)?.[2] ?? '';
}

/**
 * `attractor resume <run id>` on a shared queue: queues a failed or cancelled run again; a worker resumes it from its
 * checkpoint. With `--wait`, follows it like `run --queue --wait`.
 */
export async function resumeQueuedCommand(options: {
  readonly runId: string;
  readonly options: {
    readonly queue?: string | boolean;
    readonly store?: string;
    readonly wait?: boolean;
    readonly json?: boolean;
    readonly answer?: readonly string[];
    readonly autoApprove?: boolean;
  };
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  refuseLocalAnswers(options.options, io);
  const queueUrl = requireQueueUrl(options.options.queue, io, '`attractor resume <run id>`');
  const storeUrl =
    options.options.wait === true
      ? requireStoreUrl(options.options.store, io, '`attractor resume --wait`')
      : undefined;
  const queue = await connectQueueOrExplain(queueUrl);
  try {
    const catalog = storeUrl === undefined ? undefined : await openRunCatalog(storeUrl, io);
    try {
      const afterSeq = (await catalog?.open(options.runId).readLastEventSeq()) ?? 0;
      const previous = await queue.resumeRun({ runId: options.runId });
      io.stderr.write(
        `run ${options.runId} (${previous}) is queued again; a worker resumes it from its checkpoint\n`,
      );
      if (catalog === undefined) return 0;
      return await followRun({
        catalog,
        queue,
        runId: options.runId,
        io,
        colors: createColors(io.color && options.options.json !== true),
        json: options.options.json === true,
        afterSeq,
        queueOption: queueHintOption(options.options.queue, io),
      });
    } finally {
      await catalog?.close();
    }
  } catch (error) {
    throw await asCliInputError(error);
  } finally {
    await queue.close();
  }
}

/**
 * `attractor fork <run id> --at <node>[@visit]` on a shared queue: enqueues a new run that a worker starts from the
 * checkpoint after that stage of the queued run (with the run's own DOT, or `--graph`), and prints its id.
 */
export async function forkQueuedCommand(options: {
  readonly runId: string;
  readonly at: string;
  readonly options: QueueRunCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const cli = options.options;
  refuseLocalAnswers(cli, io);
  const queueUrl = requireQueueUrl(cli.queue, io, '`attractor fork <run id>`');
  const storeUrl = cli.wait === true ? requireStoreUrl(cli.store, io, '`attractor fork --wait`') : undefined;
  const edited =
    cli.graph === undefined
      ? undefined
      : await loadPipeline({ path: cli.graph, io, colors: createColors(io.color) });
  const queue = await connectQueueOrExplain(queueUrl, io);
  try {
    const source = await queue.readRun(options.runId);
    if (source === undefined) {
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        message: `No run "${options.runId}" in the queue (--queue / ATTRACTOR_QUEUE_URL), and no run directory of that name. List runs with \`attractor runs\`.`,
      });
    }
    const runId = await queue.enqueueRun({
      source: edited?.source ?? source.request.source,
      ...(edited !== undefined
        ? { filename: resolve(io.cwd, cli.graph ?? '') }
        : source.request.filename === undefined
          ? {}
          : { filename: source.request.filename }),
      graphName: edited?.graph.id ?? graphNameOf(source),
      options: { ...source.request.options, ...backendOptionsOf(cli, io.cwd) },
      fork: { runId: options.runId, at: options.at },
      ...(cli.set === undefined ? {} : { context: cli.set as Readonly<Record<string, JsonValue>> }),
    });
    io.stdout.write(`${runId}\n`);
    if (storeUrl === undefined) return 0;
    const catalog = await openRunCatalog(storeUrl, io);
    try {
      return await followRun({
        catalog,
        queue,
        runId,
        io,
        colors: createColors(io.color && cli.json !== true),
        json: cli.json === true,
        queueOption: queueHintOption(cli.queue, io),
      });
    } finally {
      await catalog.close();
    }
  } finally {
    await queue.close();
  }
}

/** `attractor answer <run> <key>`: answers the gate a suspended run waits at; a worker resumes the run. */
export async function answerCommand(options: {
  readonly runId: string;
  readonly key: string;
  readonly options: { readonly queue?: string };
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const queueUrl = requireQueueUrl(options.options.queue, io, '`attractor answer`');
  const queue = await connectQueueOrExplain(queueUrl);
  try {
    const { answer } = await queue.answerRun({ runId: options.runId, text: options.key });
    io.stdout.write(
      `answered run ${options.runId} with ${answer.selectedOption === undefined ? answer.value : answer.selectedOption.label}; a worker resumes it\n`,
    );
    return 0;
  } catch (error) {
    throw await asCliInputError(error);
  } finally {
    await queue.close();
  }
}

/**
 * A queue's refusal of an answer or a resume (`AnswerRefusedError`: no such run, not waiting, not an option of the
 * gate) or of a request holding a secret (`SecretInRequestError`) as the user error it is (`CLI_INVALID_INPUT`, its
 * message printed without a stack); any other error as it is.
 */
async function asCliInputError(error: unknown): Promise<unknown> {
  const { AnswerRefusedError, SecretInRequestError } = await import('@attractor/worker');
  return AnswerRefusedError.isInstance(error) || SecretInRequestError.isInstance(error)
    ? new CliError({ code: 'CLI_INVALID_INPUT', message: error.message, cause: error })
    : error;
}
