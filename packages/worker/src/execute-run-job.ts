/**
 * One job of the run queue: start or resume the run it names against the shared store, until it ends, suspends at
 * a human gate, is cancelled, or the worker stops (then the run goes back to the queue).
 */
import { mkdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import {
  type Checkpoint,
  type Clock,
  type CodergenBackend,
  type CommandSandbox,
  type HandlerRegistry,
  type InterviewTimeoutEvent,
  type PipelineCancelledEvent,
  type PipelineEvent,
  type PipelineSuspendedEvent,
  type PipelineTelemetry,
  type Question,
  ResumeError,
  RunLockedError,
  type RunManifest,
  type RunResult,
  startForkedPipeline,
  startPipeline,
  startResumedPipeline,
  type WorkspaceProvider,
} from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import { catalogRunStores, type WorkerRunCatalog } from './catalog-run-stores.js';
import { resolveSecretContext } from './mask-run-request.js';
import type { QueuedRun, RunRequest } from './queued-run.js';
import type { RunJobData, RunQueue } from './run-queue.js';
import type { WorkerEvent } from './start-worker.js';
import { createSuspendingInterviewer } from './suspending-interviewer.js';

/** What a run needs to execute, built by the worker's `prepare` from the run's request. */
export interface PreparedRun {
  /** The pipeline, parsed, transformed and validated (e.g. `prepareGraph` of `@attractor/graph`). */
  readonly graph: Graph;
  readonly registry: HandlerRegistry;
  readonly backend?: CodergenBackend;
  /** Secret values masked in everything the run writes (API keys). */
  readonly secretValues?: readonly string[];
  /** Overrides the graph's `max_steps`. */
  readonly maxSteps?: number;
  /** Confines the commands of tool and agent stages (`runPipeline({ sandbox })`). Default: none. */
  readonly sandbox?: CommandSandbox;
  /** Releases what `prepare` opened, after the run stops. */
  readonly dispose?: () => void | Promise<void>;
  /**
   * Gives the run a workspace of its own (README "Workspaces"; `createWorkspaceProvider` of `@attractor/workspace`,
   * with a shared repository or bundles in the run store so that another worker can pick the run up). Default: the
   * run works in its working directory in place.
   */
  readonly workspace?: WorkspaceProvider;
}

/** Builds a run's graph and services from its request; `workdir` is the run's directory under the workdir root. */
export type PrepareRun = (
  request: RunRequest & { readonly runId: string; readonly workdir: string },
) => Promise<PreparedRun>;

/** How long a run whose lock a live runner holds waits before a worker looks again, in milliseconds. */
const LOCKED_RETRY_MS = 3000;

/** Why a worker stops a run it executes. */
export type StopCause = 'cancel' | 'stop' | 'suspend';

/** A run a worker executes now. */
export interface ActiveRun {
  /** Stops the run now (its running stage is interrupted; the checkpoint stays at the stage before it). */
  stop(cause: StopCause, reason: string): void;
  /** Stops the run at its next checkpoint: the running stage finishes first (a draining worker). */
  drain(reason: string): void;
}

/** What {@link executeRunJob} needs of the run queue: the worker's own connection, or a proxy to it. */
export type RunJobQueue = Pick<RunQueue, 'readRun' | 'claimRun' | 'settleRun' | 'sendJob' | 'suspendAtGate'>;

/** One job of the run queue, as pg-boss hands it to a worker. */
export interface RunJob {
  readonly id: string;
  readonly data: RunJobData;
  /** Aborted when pg-boss takes the job back (its heartbeat or expiry failed). */
  readonly signal: AbortSignal;
}

/** Options of {@link executeRunJob}. Internal to the worker. */
export interface ExecuteRunJobOptions {
  readonly job: RunJob;
  readonly queue: RunJobQueue;
  readonly catalog: WorkerRunCatalog;
  readonly prepare: PrepareRun;
  readonly workdirRoot: string;
  readonly runsRoot: string;
  /** Receives the process groups each run's stages are running (the worker's guard). */
  readonly onProcessGroups?: (logsRoot: string, processGroupIds: readonly number[]) => void;
  readonly workerId: string;
  readonly clock: Clock;
  readonly emit: (event: WorkerEvent) => void;
  readonly active: Map<string, ActiveRun>;
  /** The run's telemetry (the job's span as its parent). */
  readonly telemetry?: PipelineTelemetry;
  /** Receives each event of the run as the store records it. */
  readonly onRunEvent?: (event: PipelineEvent) => void;
  /**
   * The worker's environment, where the context values the queue stores masked are read from (`deploy_token` from
   * `DEPLOY_TOKEN`, see `resolveSecretContext`). Default: none (a run with a masked secret is refused).
   */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Called when a top-level stage of the run starts (what a crash report names). */
  readonly onStage?: (nodeId: string) => void;
}

/**
 * Executes one run job. Resolves when the job is done (the run ended, suspended, was cancelled or handed back);
 * rejects on an infrastructure fault (store or queue down, the run locked by a live worker) so that pg-boss retries
 * the job after its retry delay.
 */
export async function executeRunJob(options: ExecuteRunJobOptions): Promise<void> {
  const { job, queue, emit } = options;
  const { runId, trigger } = job.data;
  const queued = await queue.readRun(runId);
  if (queued === undefined) {
    emit({ type: 'run.skipped', runId, reason: 'the queue has no such run' });
    return;
  }
  if (queued.state === 'success' || queued.state === 'fail' || queued.state === 'cancelled') {
    emit({ type: 'run.skipped', runId, reason: `the run is already ${queued.state}` });
    return;
  }
  if (trigger === 'timeout' && deadlineSettled(queued, job.data.questionId)) {
    emit({ type: 'run.skipped', runId, reason: 'the question of this deadline was answered' });
    return;
  }
  if (queued.state === 'waiting' && trigger !== 'timeout') {
    emit({ type: 'run.skipped', runId, reason: 'the run waits for an answer' });
    return;
  }

  const store = options.catalog.open(runId);
  let manifest: RunManifest | undefined;
  let checkpoint: Checkpoint | undefined;
  try {
    manifest = await store.readManifest();
    checkpoint = manifest === undefined ? undefined : await store.readCheckpoint();
  } finally {
    // Only read here (the engine opens the run's store for itself): a store never closed would stay in a catalog
    // that shares its open stores (the file catalog) for as long as the worker lives.
    await store.close();
  }
  const endedState =
    checkpoint?.state === 'success' ||
    (trigger !== 'resume' && (checkpoint?.state === 'fail' || checkpoint?.state === 'cancelled'))
      ? checkpoint.state
      : undefined;
  if (endedState !== undefined) {
    // It ended before (its worker died before recording that): record it, run nothing.
    await queue.claimRun({ runId, workerId: options.workerId });
    await queue.settleRun({ runId, state: endedState });
    emit({ type: 'run.finished', runId, status: endedState });
    return;
  }
  if (!(await queue.claimRun({ runId, workerId: options.workerId }))) {
    emit({ type: 'run.skipped', runId, reason: 'the run was cancelled' });
    return;
  }

  const workdir = join(options.workdirRoot, runId);
  await mkdir(workdir, { recursive: true });
  let prepared: PreparedRun;
  let context: RunRequest['context'];
  let contextSecrets: readonly string[] = [];
  try {
    ({ context, secretValues: contextSecrets } = resolveSecretContext(
      queued.request.context,
      options.environment ?? {},
    ));
    prepared = await options.prepare({
      ...queued.request,
      ...(context === undefined ? {} : { context }),
      runId,
      workdir,
    });
  } catch (error) {
    // The request cannot become a run here (the DOT has errors, a plug-in is missing): a retry changes nothing.
    const message = error instanceof Error ? error.message : String(error);
    await queue.settleRun({ runId, state: 'fail', error: message });
    emit({ type: 'run.finished', runId, status: 'fail', failureReason: message });
    return;
  }
  const controller = new AbortController();
  let stopCause: StopCause | undefined;
  /** Why the run stops at its next checkpoint (a draining worker), once asked to. */
  let drainReason: string | undefined;
  /** Questions whose deadline passed while the run was suspended, by id: when they were first asked. */
  const timedOut = new Map<string, Date>();
  /** The gate the run suspended at: its question and deadline. */
  let suspendedAt: { readonly question: Question; readonly deadlineAt: Date | undefined } | undefined;
  const active: ActiveRun = {
    stop(cause, reason) {
      if (stopCause !== undefined) return;
      stopCause = cause;
      controller.abort(new Error(reason));
    },
    drain(reason) {
      drainReason ??= reason;
    },
  };
  options.active.set(runId, active);
  /** Whether a run directory is a top-level run's (the run, or a `loop_restart` sibling), not a child pipeline's. */
  const isTopLevel = (logsRoot: string) =>
    relative(options.runsRoot, resolve(logsRoot)).split(sep).length === 1;
  const interviewer = createSuspendingInterviewer({
    readRun: (id) => queue.readRun(id),
    runId,
    workerId: options.workerId,
    clock: options.clock,
    persist: async ({ question, askedAt, deadlineAt, newDeadline }) => {
      await queue.suspendAtGate({
        runId,
        question,
        askedBy: options.workerId,
        askedAt,
        deadlineAt,
        scheduleTimeout: newDeadline,
      });
      suspendedAt = { question, deadlineAt };
    },
    suspend: (reason) => options.active.get(runId)?.stop('suspend', reason),
    onTimeout: (question, askedAt) => timedOut.set(question.id, askedAt),
  });
  const secretValues = [...(prepared.secretValues ?? []), ...contextSecrets];
  const services = {
    graph: prepared.graph,
    registry: prepared.registry,
    ...(prepared.backend === undefined ? {} : { backend: prepared.backend }),
    ...(secretValues.length === 0 ? {} : { secretValues }),
    ...(prepared.maxSteps === undefined ? {} : { maxSteps: prepared.maxSteps }),
    ...(prepared.sandbox === undefined ? {} : { sandbox: prepared.sandbox }),
    ...(prepared.workspace === undefined ? {} : { workspace: prepared.workspace }),
    interviewer,
    workdir,
    clock: options.clock,
    abortSignal: AbortSignal.any([controller.signal, job.signal]),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    // A suspension is no cancellation: the run's log says where it waits (the run index shows it waiting).
    createRunStore: catalogRunStores({
      catalog: options.catalog,
      root: options.runsRoot,
      ...(options.onProcessGroups === undefined ? {} : { onProcessGroups: options.onProcessGroups }),
      // A draining worker stops the run once the stage that was running has completed and been checkpointed.
      onCheckpoint: (logsRoot) => {
        if (drainReason !== undefined && isTopLevel(logsRoot)) active.stop('stop', drainReason);
      },
      mapEvent: reportingTo(options.onRunEvent, (event) => {
        if (event.type === 'stage.started' && event.branchPath === undefined) options.onStage?.(event.nodeId);
        if (
          event.type === 'pipeline.cancelled' &&
          event.branchPath === undefined &&
          stopCause === 'suspend' &&
          suspendedAt !== undefined
        )
          return suspendedEvent(event, suspendedAt);
        // A deadline that passed while the run was suspended is a timeout, as in a live run.
        const askedAt = event.type === 'interview.completed' ? timedOut.get(event.question.id) : undefined;
        if (event.type !== 'interview.completed' || askedAt === undefined) return event;
        const { type: _completed, durationMs: _waited, ...stamped } = event;
        const timeout: InterviewTimeoutEvent = {
          ...stamped,
          type: 'interview.timeout',
          stage: event.question.stage,
          durationMs: Math.max(0, Date.parse(event.timestamp) - askedAt.getTime()),
        };
        return timeout;
      }),
    }),
    logsRoot: join(options.runsRoot, runId),
  };
  const fork = queued.request.fork;
  const ran: Promise<RunResult> =
    manifest === undefined && fork !== undefined
      ? startForkedPipeline({
          ...services,
          from: join(options.runsRoot, fork.runId),
          at: fork.at,
          ...(context === undefined ? {} : { context }),
          ...(queued.request.filename === undefined ? {} : { sourcePath: queued.request.filename }),
        }).then((forked) => forked.result)
      : manifest === undefined
        ? startPipeline({
            ...services,
            ...(context === undefined ? {} : { context }),
            ...(queued.request.filename === undefined ? {} : { sourcePath: queued.request.filename }),
          }).result
        : startResumedPipeline(services).result;
  emit({ type: 'run.started', runId, resumed: manifest !== undefined, trigger });
  let result: RunResult;
  try {
    result = await ran;
  } catch (error) {
    if (RunLockedError.isInstance(error)) {
      // A live runner holds the run (one pg-boss thought dead, or a local `attractor resume`): look again later,
      // without using up the job's retries.
      await queue.settleRun({ runId, state: 'queued' });
      await queue.sendJob({ runId, trigger: 'requeue' }, new Date(options.clock.now() + LOCKED_RETRY_MS));
      emit({ type: 'run.requeued', runId, reason: error.message });
      return;
    }
    if (ResumeError.isInstance(error) || isWorkspaceRefusal(error)) {
      // Nothing a retry would change (another graph, a finished run): the run ends here.
      await queue.settleRun({ runId, state: 'fail', error: error.message });
      emit({ type: 'run.finished', runId, status: 'fail', failureReason: error.message });
      return;
    }
    throw error;
  } finally {
    options.active.delete(runId);
    await prepared.dispose?.();
  }

  if (stopCause === 'suspend' && suspendedAt !== undefined) {
    emit({ type: 'run.suspended', runId, stage: suspendedAt.question.stage });
    return;
  }
  if (result.status === 'cancelled' && stopCause !== 'cancel') {
    if (job.signal.aborted && stopCause === undefined) return; // pg-boss took the job back; its retry resumes the run
    await queue.settleRun({ runId, state: 'queued' });
    await queue.sendJob({ runId, trigger: 'requeue' });
    emit({ type: 'run.requeued', runId, reason: result.failureReason ?? 'the worker is stopping' });
    return;
  }
  await queue.settleRun({
    runId,
    state: result.status,
    ...(result.failureReason === undefined ? {} : { error: result.failureReason }),
  });
  emit({
    type: 'run.finished',
    runId,
    status: result.status,
    ...(result.failureReason === undefined ? {} : { failureReason: result.failureReason }),
  });
}

/**
 * A workspace that cannot be had for a reason a retry does not change (`WorkspaceError` of `@attractor/workspace`
 * that is not retryable: the run asks for `git` outside a repository with no shared one). One that is retryable
 * (the shared repository unreachable) is a fault: the job is retried.
 */
function isWorkspaceRefusal(error: unknown): error is Error {
  const fields = error as { readonly code?: unknown; readonly retryable?: unknown } | undefined;
  return error instanceof Error && fields?.code === 'WORKSPACE_REFUSED' && fields.retryable === false;
}

/**
 * Whether the deadline job of question `questionId` has nothing left to do: the question was answered (the run's
 * answers hold it) or the run moved on to another gate. Not merely because the run no longer waits: a deadline job
 * whose worker died after claiming the run (state `running`, the gate's default taken or about to be) is retried by
 * pg-boss, and that retry must resume the run as any job's retry does (the run lock tells a dead holder from a live
 * one), or the run would stay `running` with no job left.
 */
function deadlineSettled(queued: QueuedRun, questionId: string | undefined): boolean {
  if (questionId === undefined) return true;
  return queued.answers[questionId] !== undefined || queued.question?.id !== questionId;
}

/** The `pipeline.suspended` that replaces the `pipeline.cancelled` of a run stopped at a gate (same seq and time). */
function suspendedEvent(
  cancelled: PipelineCancelledEvent,
  gate: { readonly question: Question; readonly deadlineAt: Date | undefined },
): PipelineSuspendedEvent {
  return {
    seq: cancelled.seq,
    timestamp: cancelled.timestamp,
    runId: cancelled.runId,
    type: 'pipeline.suspended',
    stage: gate.question.stage,
    question: gate.question,
    ...(gate.deadlineAt === undefined ? {} : { deadlineAt: gate.deadlineAt.toISOString() }),
    durationMs: cancelled.durationMs,
  };
}

/** `map`, also handing each event it keeps to `listener`. */
function reportingTo(
  listener: ((event: PipelineEvent) => void) | undefined,
  map: (event: PipelineEvent) => PipelineEvent | undefined,
): (event: PipelineEvent) => PipelineEvent | undefined {
  if (listener === undefined) return map;
  return (event) => {
    const mapped = map(event);
    if (mapped !== undefined) listener(mapped);
    return mapped;
  };
}
