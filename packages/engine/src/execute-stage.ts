/**
 * One visit of one node: resolve the handler, run attempts with timeout and cancellation, turn exceptions into
 * FAIL outcomes, and retry per spec §3.5–3.6 and docs/architecture.md "Retrying FAIL".
 */
import type { GraphEdge, GraphNode, HandlerTraits } from '@attractor/graph';
import type { Context as TraceContext } from '@opentelemetry/api';
import { AttemptSignal, whenAborted } from './attempt-signal.js';
import type { Context } from './context.js';
import type { UnstampedEvent } from './event-bus.js';
import { formatDuration } from './format-duration.js';
import type { Handler, HandlerExecuteInput } from './handler.js';
import type { BranchResult, HandlerRuntime, RunBranchOptions, StageFidelity } from './handler-runtime.js';
import { findNonJson } from './json-value.js';
import type { Outcome } from './outcome.js';
import type { EmittableEvent } from './pipeline-event.js';
import { buildRetryPolicy, retryDelayMs } from './retry-policy.js';
import type { RunScope } from './run-scope.js';
import type { LocalStageDirectory, StageStatusFile } from './run-store.js';
import type { StageSpan } from './run-telemetry.js';
import { createStageWorkspace } from './stage-workspace.js';
import { statusFileToOutcome } from './status-file.js';
import type { WalkState } from './walk-state.js';
import { wrapInterviewer } from './wrap-interviewer.js';

/** Everything {@link executeStage} needs. Internal to the engine. */
export interface StageExecution {
  readonly scope: RunScope;
  readonly state: WalkState;
  readonly node: GraphNode;
  readonly context: Context;
  /** Stage directory relative to the run directory. */
  readonly stagePath: string;
  /** The stage as a real directory (`runtime.stageDir`); synced into the store after every attempt. */
  readonly localStage: LocalStageDirectory;
  readonly branchPath: readonly string[];
  readonly visit: number;
  /** Step number of this execution in the walk (events' `index`). */
  readonly index: number;
  readonly fidelity: StageFidelity;
  readonly abortSignal: AbortSignal;
  /** The outcome of this node's visit the previous leg of a resumed run failed at (`runtime.resumedFrom`). */
  readonly resumedFrom?: Outcome;
  /** The walk's trace context (its run span's, or the calling stage's for a branch), when the run has telemetry. */
  readonly traceContext?: TraceContext | undefined;
  /** The edge the walk came along, for `stage.started`'s `edgeIndex`. */
  readonly incomingEdge?: GraphEdge;
  /** Runs a sub-walk for `runtime.runBranch`. */
  readonly runBranch: (
    options: RunBranchOptions,
    stage: { stagePath: string; signal: AbortSignal; traceContext: TraceContext | undefined },
  ) => Promise<BranchResult>;
}

/** The result of one visit: the final outcome, or cancellation (never recorded as completed). */
export type StageResult =
  | { readonly kind: 'outcome'; readonly outcome: Outcome; readonly attempts: number }
  | { readonly kind: 'cancelled'; readonly reason: string };

const noop: Handler = { execute: async () => ({ status: 'success' }) };

class StageTimeout extends Error {}

/** Runs every attempt of one visit. Never rejects for handler faults; rejects when the store refuses a write (a run fault). Internal to the engine. */
export async function executeStage(execution: StageExecution): Promise<StageResult> {
  const { scope, state, node } = execution;
  const policy = buildRetryPolicy(node, scope.graph);
  const handlerType = scope.graph.handlerType(node);
  let retriesThisVisit = 0;
  for (let attempt = 1; ; attempt++) {
    const startedMs = scope.clock.now();
    emit(execution, {
      type: 'stage.started',
      nodeId: node.id,
      index: execution.index,
      visit: execution.visit,
      attempt,
      label: node.label,
      handlerType,
      ...(execution.incomingEdge === undefined ? {} : { edgeIndex: execution.incomingEdge.index }),
    });
    // Written once the handler waits for anything; a stage that never waits is written with its completion.
    scope.bus.flushLater();
    const span = scope.telemetry?.startStage({
      parent: execution.traceContext,
      runId: scope.runId,
      pipeline: scope.graph.id,
      nodeId: node.id,
      handlerType,
      index: execution.index,
      visit: execution.visit,
      attempt,
      branchPath: execution.branchPath,
    });
    const result = await runAttempt(execution, attempt, span);
    if (result.kind === 'cancelled') {
      span?.end(result);
      return result;
    }
    const outcome = result.outcome;
    const durationMs = scope.clock.now() - startedMs;
    // Once a budget refused a model call the run is stopping: a retry would be refused too.
    const wantsRetry =
      (outcome.status === 'retry' || (outcome.status === 'fail' && outcome.retryable !== false)) &&
      scope.usage.stop === undefined;
    if (!wantsRetry) {
      span?.end({ kind: 'outcome', outcome, willRetry: false });
      if (retriesThisVisit > 0) state.nodeRetries[node.id] = 0;
      return { kind: 'outcome', outcome, attempts: attempt };
    }
    const willRetry = attempt < policy.maxAttempts;
    span?.end({ kind: 'outcome', outcome, willRetry });
    emit(execution, {
      type: 'stage.failed',
      nodeId: node.id,
      index: execution.index,
      visit: execution.visit,
      attempt,
      error: outcome.failureReason ?? outcome.status,
      willRetry,
      durationMs,
    });
    if (!willRetry) {
      if (outcome.status === 'fail') return { kind: 'outcome', outcome, attempts: attempt };
      if (node.allowPartial) {
        return {
          kind: 'outcome',
          outcome: { ...outcome, status: 'partial_success', notes: 'retries exhausted, partial accepted' },
          attempts: attempt,
        };
      }
      const reason = outcome.failureReason === undefined ? '' : `: ${outcome.failureReason}`;
      return {
        kind: 'outcome',
        outcome: { ...outcome, status: 'fail', failureReason: `max retries exceeded${reason}` },
        attempts: attempt,
      };
    }
    retriesThisVisit += 1;
    state.nodeRetries[node.id] = (state.nodeRetries[node.id] ?? 0) + 1;
    execution.context.set(`internal.retry_count.${node.id}`, state.nodeRetries[node.id]!);
    const delayMs = retryDelayMs({ attempt, backoff: policy.backoff, random: scope.random });
    emit(execution, {
      type: 'stage.retrying',
      nodeId: node.id,
      index: execution.index,
      visit: execution.visit,
      attempt,
      delayMs,
    });
    try {
      await scope.clock.sleep(delayMs, execution.abortSignal);
    } catch {
      return { kind: 'cancelled', reason: abortReason(execution.abortSignal) };
    }
  }
}

function emit(execution: StageExecution, event: UnstampedEvent): void {
  execution.scope.bus.emit(event, execution.branchPath);
}

/** The message of an abort reason. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' && reason !== '' ? reason : 'cancelled';
}

type AttemptResult = { kind: 'outcome'; outcome: Outcome } | { kind: 'cancelled'; reason: string };

/** The reason a finished attempt's signal is aborted with, so that anything its handler left running stops. */
const attemptFinished = new Error('stage attempt finished');

async function runAttempt(
  execution: StageExecution,
  attempt: number,
  span: StageSpan | undefined,
): Promise<AttemptResult> {
  const { scope, node, context } = execution;
  const runSignal = execution.abortSignal;
  // The attempt's own signal, aborted by the run's signal or the timeout; the run-abort racer also stops waiting for
  // a handler that ignores its signal.
  const attemptSignal = new AttemptSignal();
  const attemptState = { ended: false };
  let rejectRun: ((reason: unknown) => void) | undefined;
  const runAborted = new Promise<never>((_, reject) => {
    rejectRun = reject;
  });
  const stopWaiting = whenAborted(runSignal, () => {
    attemptSignal.abort(runSignal.reason);
    rejectRun?.(runSignal.reason);
  });
  let timer: AbortController | undefined;
  // A stage file the store refused (disk full, lost connection) stops the run as a fault, never as a stage failure:
  // the stage runs again on resume.
  let writeFault: { error: unknown } | undefined;
  const onWriteFault = (error: unknown) => {
    writeFault ??= { error };
  };
  try {
    const traits = scope.registry.traitsOf(node, scope.graph);
    const handler = resolveHandler(execution, traits);
    const runtime = createRuntime(execution, attempt, attemptSignal, attemptState, onWriteFault, span);
    const call = () =>
      callHandler(handler, { node, context, graph: scope.graph, logsRoot: scope.logsRoot, runtime });
    const racers: Promise<unknown>[] = [
      // The stage span is the active context while the handler runs: what it calls nests its spans under it.
      Promise.resolve().then(span === undefined ? call : () => span.run(call)),
      runAborted,
    ];
    // A human gate's `timeout` is the interview timeout, never a handler timeout
    // (docs/architecture.md "Human gates").
    const timeoutMs = traits.asksHuman === true ? undefined : node.timeoutMs;
    if (timeoutMs !== undefined && timeoutMs > 0) {
      timer = new AbortController();
      racers.push(
        scope.clock.sleep(timeoutMs, timer.signal).then(
          () => {
            const error = new StageTimeout(`timeout after ${formatDuration(timeoutMs)}`);
            attemptSignal.abort(error);
            throw error;
          },
          () => new Promise<never>(() => undefined),
        ),
      );
    }
    const value = await Promise.race(racers);
    if (writeFault !== undefined) throw writeFault.error;
    try {
      const synced = execution.localStage.sync();
      if (synced !== undefined) await synced;
    } catch (error) {
      onWriteFault(error);
      throw error;
    }
    return { kind: 'outcome', outcome: await acceptOutcome(execution, value) };
  } catch (error) {
    if (writeFault !== undefined) throw writeFault.error;
    // Keep what the failed attempt left in a scratch directory as evidence.
    await Promise.resolve()
      .then(() => execution.localStage.sync())
      .catch(() => undefined);
    if (runSignal.aborted) return { kind: 'cancelled', reason: abortReason(runSignal) };
    return { kind: 'outcome', outcome: errorToOutcome(error) };
  } finally {
    stopWaiting();
    timer?.abort();
    attemptSignal.abort(attemptFinished);
    // Nobody waits for the run-abort racer any more: keep its eventual rejection from being reported as unhandled.
    runAborted.catch(() => undefined);
    attemptState.ended = true;
  }
}

function resolveHandler(execution: StageExecution, traits: HandlerTraits): Handler {
  const { scope, node } = execution;
  if (scope.registry.resolveType(node) !== undefined) return scope.registry.resolve(node, scope.graph);
  // Start and exit are no-ops (spec §4.3–4.4); the engine runs them even when no handler is registered.
  if (traits.role !== undefined) return noop;
  return scope.registry.resolve(node, scope.graph);
}

/**
 * Calls `execute` with its one input object; a JavaScript handler written for the older positional form
 * (`execute(node, context, graph, logsRoot, runtime)`, two or more declared parameters) is called that way.
 */
function callHandler(handler: Handler, input: HandlerExecuteInput): Promise<Outcome> {
  const execute = handler.execute as (...parameters: unknown[]) => Promise<Outcome>;
  if (execute.length < 2) return handler.execute(input);
  return execute.call(handler, input.node, input.context, input.graph, input.logsRoot, input.runtime);
}

/**
 * Turns a thrown value into a FAIL outcome, keeping `retryable` when the error carries it
 * (CONTRIBUTING.md "Errors").
 */
export function errorToOutcome(error: unknown): Outcome {
  const message = error instanceof Error ? error.message : String(error);
  const retryable =
    typeof error === 'object' && error !== null ? (error as { retryable?: unknown }).retryable : undefined;
  return {
    status: 'fail',
    failureReason: message === '' ? 'handler threw an error without a message' : message,
    ...(typeof retryable === 'boolean' ? { retryable } : {}),
  };
}

async function acceptOutcome(execution: StageExecution, value: unknown): Promise<Outcome> {
  const { scope, node, stagePath } = execution;
  if (value === undefined || value === null) {
    const written: StageStatusFile | undefined = await scope.store.readStageStatus(stagePath);
    if (written !== undefined) return validateOutcome(statusFileToOutcome(written));
    if (node.autoStatus)
      return { status: 'success', notes: 'auto-status: handler completed without writing status' };
    return {
      status: 'fail',
      failureReason: `handler of node "${node.id}" returned no outcome and wrote no status.json (set auto_status=true to treat that as success)`,
      retryable: false,
    };
  }
  return validateOutcome(value as Outcome);
}

function validateOutcome(outcome: Outcome): Outcome {
  if (typeof outcome !== 'object' || typeof outcome.status !== 'string' || outcome.status.trim() === '') {
    return {
      status: 'fail',
      failureReason: `handler returned an invalid outcome (${JSON.stringify(outcome)?.slice(0, 200)}): expected { status: "success" | "fail" | ... }`,
      retryable: false,
    };
  }
  for (const [key, value] of Object.entries(outcome.contextUpdates ?? {})) {
    const problem = findNonJson(value);
    if (problem !== undefined) {
      return {
        status: 'fail',
        failureReason: `context update "${key}" is not JSON (${problem}); store only JSON values in the context`,
        retryable: false,
      };
    }
  }
  const status = outcome.status.trim();
  return status === outcome.status ? outcome : { ...outcome, status };
}

function createRuntime(
  execution: StageExecution,
  attempt: number,
  attemptSignal: AttemptSignal,
  attemptState: { ended: boolean },
  onWriteFault: (error: unknown) => void,
  span: StageSpan | undefined,
): HandlerRuntime {
  const { scope, node, branchPath } = execution;
  const emitEvent = (event: EmittableEvent) => {
    // A handler that ignored its abort (timeout, cancellation) may still emit once its attempt has been recorded, and
    // even after the run ended: such an event belongs to no attempt any more, so it is dropped.
    if (attemptState.ended) return;
    if (span !== undefined && event.type === 'agent.usage') span.recordUsage(event);
    const withNode = 'nodeId' in event && event.nodeId !== undefined ? event : { ...event, nodeId: node.id };
    scope.bus.emit(withNode as UnstampedEvent, branchPath);
    scope.bus.flushSoon();
  };
  // The signal, the stage workspace and the interviewer are made when a handler first reads them: a no-op stage
  // reads none of them.
  let stage: HandlerRuntime['stage'] | undefined;
  let interviewer: HandlerRuntime['interviewer'] | undefined;
  let usage: HandlerRuntime['usage'] | undefined;
  const runtime: { -readonly [Key in keyof HandlerRuntime]: HandlerRuntime[Key] } = {
    get abortSignal() {
      return attemptSignal.signal;
    },
    get stage() {
      stage ??= createStageWorkspace(scope.store, execution.stagePath, execution.localStage, onWriteFault);
      return stage;
    },
    stageDir: execution.localStage.path,
    runId: scope.runId,
    workdir: scope.workdir,
    visit: execution.visit,
    attempt,
    fidelity: execution.fidelity,
    emit: emitEvent,
    get interviewer() {
      interviewer ??= wrapInterviewer({
        inner: scope.interviewer,
        clock: scope.clock,
        emit: (event) => scope.bus.emit(event, branchPath),
        abortSignal: attemptSignal.signal,
      });
      return interviewer;
    },
    get usage() {
      usage ??= scope.usage.forStage(node.id);
      return usage;
    },
    artifacts: scope.artifacts,
    clock: scope.clock,
    secrets: scope.secrets,
    processGroups: { record: (processGroupId) => recordProcessGroup(scope, processGroupId) },
    runBranch: (options) =>
      execution.runBranch(options, {
        stagePath: execution.stagePath,
        signal: attemptSignal.signal,
        traceContext: span?.context,
      }),
    runChild: (options) =>
      scope.startChild(options, {
        nodeId: node.id,
        stagePath: execution.stagePath,
        store: scope.store,
        branchPath,
        abortSignal: attemptSignal.signal,
        usage: scope.usage,
        ...(span === undefined ? {} : { traceContext: span.context }),
      }),
    recordProcessGroup: (processGroupId) => recordProcessGroup(scope, processGroupId),
  };
  // Added after the literal: a spread in an object literal with getters takes V8's slow path on every stage.
  if (scope.backend !== undefined) runtime.backend = scope.backend;
  if (scope.sandbox !== undefined) runtime.sandbox = scope.sandbox;
  if (execution.resumedFrom !== undefined) runtime.resumedFrom = execution.resumedFrom;
  if (scope.workspace !== undefined) runtime.workspace = scope.workspace;
  if (span !== undefined) runtime.telemetry = span.stage;
  return runtime;
}

/**
 * Records a running command's process group where a later runner finds it: the run lock's holder record
 * (`run.lock.json`) and, for a run directory on disk, `process-groups.json`. Returns the function that forgets it.
 */
function recordProcessGroup(scope: RunScope, processGroupId: number): () => void {
  const fromLock = scope.processGroups.add(processGroupId);
  const fromFile = scope.processGroupFile?.record(processGroupId);
  return () => {
    fromLock();
    fromFile?.();
  };
}
