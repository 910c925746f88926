/**
 * What the engine hands a handler besides the spec's four arguments
 * (docs/architecture.md "Handler contract"): the abort signal, the stage directory, the interviewer and
 * backend slots, the artifact store, time, an event sink, and the ability to execute part of the graph
 * (`runBranch`) or a whole child pipeline (`runChild`).
 */
import type { FidelityMode, Graph, GraphNode } from '@attractor/graph';
import type { ArtifactStore } from './artifact-store.js';
import type { Clock } from './clock.js';
import type { CodergenBackend } from './codergen-backend.js';
import type { CommandSandbox } from './command-sandbox.js';
import type { Context } from './context.js';
import type { Interviewer } from './interviewer.js';
import type { JsonValue } from './json-value.js';
import type { Outcome, OutcomeStatus } from './outcome.js';
import type { EmittableEvent } from './pipeline-event.js';
import type { StageTelemetry } from './pipeline-telemetry.js';
import type { ProcessGroupRecorder } from './process-group-file.js';
import type { SecretMasker } from './redact-secrets.js';
import type { RunResult } from './run-result.js';
import type { RunStore } from './run-store.js';
import type { HandlerWorkspace } from './run-workspace.js';
import type { StageWorkspace } from './stage-workspace.js';
import type { RunUsage } from './usage-ledger.js';

/** The context fidelity resolved for one stage (spec §5.4). */
export interface StageFidelity {
  /** Edge `fidelity` → node `fidelity` → graph `default_fidelity` → `compact`; `full` degrades to `summary:high` for the first stage after a resume. */
  readonly mode: FidelityMode;
  /** Node `thread_id` → edge `thread_id` → graph default thread → first node class → previous node id. */
  readonly threadKey: string;
  /** A summary of the run so far sized for `mode` (chars ≈ tokens × 4); empty for `full`. */
  readonly preamble: string;
}

/** Options of {@link HandlerRuntime.runBranch}. */
export interface RunBranchOptions {
  /** The first node of the branch (e.g. the target of a fan-out edge). */
  readonly startNodeId: string;
  /** The branch's own context, usually `context.clone()`; the branch mutates it. */
  readonly context: Context;
  /**
   * The walk stops before the first node for which this returns true (that node is not executed). The parallel
   * handler passes `(node) => node.id === findJoinNode(graph, parallelId)` (the block's join: its fan-in, or the
   * first node all branches reach). Default: never.
   */
  readonly stopBefore?: (node: GraphNode) => boolean;
  /** Aborts the branch (in addition to the stage's own signal), e.g. `first_success` cancelling the others. */
  readonly abortSignal?: AbortSignal;
  /**
   * Unique among the calling stage's branches: events carry it in `branchPath`, and stage directories go under
   * `{stageDir}/branches/{branchId}/{nodeId}/`. Letters, digits, `.`, `_`, `-` only.
   */
  readonly branchId: string;
  /**
   * The folder of the calling stage that holds the branch's stage directories: `branches` (the default, parallel
   * branches: `{stageDir}/branches/{branchId}/{nodeId}/`) or `items` (`foreach` items:
   * `{stageDir}/items/{branchId}/{nodeId}/`). Outside `branches`, the branch's events carry `{folder}/{branchId}`
   * (`items/3`) in `branchPath`, and its workspace is named that way.
   */
  readonly folder?: 'branches' | 'items';
}

/** The result of {@link HandlerRuntime.runBranch}. */
export interface BranchResult {
  /**
   * `success` when the branch reached its stop node, a terminal node or an outgoing-edge-free node after a
   * non-FAIL outcome; `fail` on a FAIL without a route, a dead end, a loop guard or an exception; `cancelled`
   * when aborted. The last node's own status is in `outcome`.
   */
  readonly status: 'success' | 'fail' | 'cancelled';
  /** The last node the branch executed (the start node id when it executed none). */
  readonly lastNodeId: string;
  /** The node the walk stopped before (`stopBefore` returned true), when that is why it ended. */
  readonly stoppedAt?: string;
  /** The node executions of the branch, in order. */
  readonly completedNodes: readonly string[];
  /** The last node's outcome (a synthetic FAIL when the branch failed before any node completed). */
  readonly outcome: Outcome;
  /** The branch context after the walk (the `context` passed in). */
  readonly context: Context;
  /** Keys the branch added or changed relative to its context at the start. */
  readonly contextUpdates: Readonly<Record<string, JsonValue>>;
  /** `last_response` of the branch context, when a stage set it. */
  readonly lastResponse?: string;
  readonly failureReason?: string;
  /**
   * The branch's own workspace when the run has one (README "Workspaces"): its last commit and git branch, for the
   * fan-in to merge (`runtime.workspace.merge`).
   */
  readonly workspace?: { readonly commit: string; readonly ref?: string };
}

/** Options of {@link HandlerRuntime.runChild}. */
export interface RunChildOptions {
  /** The child pipeline, already built and validated by the caller. */
  readonly graph: Graph;
  /**
   * Where the child run is kept, relative to the calling stage (e.g. `child`): its store is
   * `store.child('{stagePath}/{name}')` of the parent run's store; the file store keeps it in `{stageDir}/{name}/`.
   * `/`-separated, no `..`.
   */
  readonly name: string;
  /** Initial context values for the child (graph attributes are mirrored as usual). */
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** The child's working directory. Default: the parent run's `workdir`. */
  readonly workdir?: string;
  /** Cancels the child (in addition to the parent stage's signal). */
  readonly abortSignal?: AbortSignal;
}

/** A snapshot of a running or finished child pipeline, for a supervisor's observe step (spec §4.11). */
export interface ChildRunStatus {
  readonly state: 'running' | 'completed' | 'failed' | 'cancelled';
  /** The node executing now (or the last one executed when not running). */
  readonly currentNodeId?: string;
  /** The stage path of `currentNodeId` in the child run: steering files go to its `steer/` (see `ChildRunHandle.store`). */
  readonly currentStagePath?: string;
  /** The stage directory of `currentNodeId` (file store only: `{child logsRoot}/{currentStagePath}`). */
  readonly currentStageDir?: string;
  /** Node executions so far, in order. */
  readonly completedNodes: readonly string[];
  /** The latest outcome of each node so far. */
  readonly nodeOutcomes: Readonly<Record<string, Outcome>>;
  /** Retry counts per node so far. */
  readonly nodeRetries: Readonly<Record<string, number>>;
  /** The last outcome status recorded, if any. */
  readonly lastStatus?: OutcomeStatus;
  /** The run's failure reason once it ended in `failed`/`cancelled`. */
  readonly failureReason?: string;
}

/** A child pipeline started by {@link HandlerRuntime.runChild}. */
export interface ChildRunHandle {
  /** The child's run id. */
  readonly runId: string;
  /** The child's store identifier (its run directory with the file store). */
  readonly logsRoot: string;
  /** The child run's store: read its stages, write steering files (`steer/NNNN.md` of `status().currentStagePath`). */
  readonly store: RunStore;
  /** The current status; cheap to call on every poll. */
  status(): ChildRunStatus;
  /** Settles when the child ends. Rejects only on infrastructure faults, like `runPipeline`. */
  readonly result: Promise<RunResult>;
  /** Cancels the child; `result` then resolves with status `cancelled`. */
  cancel(reason?: string): void;
}

/**
 * The per-attempt services the engine gives a handler (docs/architecture.md "Handler contract").
 */
export interface HandlerRuntime {
  /** Aborted on node `timeout` (the attempt then fails with `timeout after <d>`) or run cancellation. */
  readonly abortSignal: AbortSignal;
  /**
   * The current stage's files through the run store (`prompt.md`, `stdout.txt`, ...): use this rather than
   * {@link stageDir}, so the handler works with every store.
   */
  readonly stage: StageWorkspace;
  /**
   * A real directory holding the stage's files, created by the engine before `execute`: with the file store the stage
   * directory `{logsRoot}/{stagePath}` itself; with other stores a scratch directory whose new and changed files are
   * copied into the store after the attempt (the same as `await stage.localDirectory()`). For programs that need a
   * directory (a tool's `ATTRACTOR_STAGE_DIR`, agent CLIs); write the handler's own files with {@link stage}.
   */
  readonly stageDir: string;
  /** The run id (the run directory's name). */
  readonly runId: string;
  /**
   * The run's working directory: cwd of tool commands, root of agent file tools. With a workspace (README
   * "Workspaces") the run's worktree, or a parallel branch's own.
   */
  readonly workdir: string;
  /**
   * The run's workspace (README "Workspaces"), absent when the run works in place: the fan-in merges parallel
   * branches' commits with it.
   */
  readonly workspace?: HandlerWorkspace;
  /** Which visit of this node this is, from 1 (spec: retries inside a visit do not count). */
  readonly visit: number;
  /** Which attempt within the visit, from 1 (at most `max_retries + 1`). */
  readonly attempt: number;
  /**
   * Set for the first stage of a resumed run when the previous leg failed at this same node (a budget stop inside a
   * fan-out, a failed stage): the outcome that visit ended with, context updates included. A handler that can keep
   * finished work reads it; the parallel handler runs again only the branches that did not succeed. Absent otherwise.
   */
  readonly resumedFrom?: Outcome;
  /** Fidelity mode, thread key and preamble for this stage (spec §5.4). */
  readonly fidelity: StageFidelity;
  /** Emits a stage-scoped event; the engine stamps it and appends it to `events.jsonl` (secrets redacted). */
  emit(event: EmittableEvent): void;
  /**
   * The run's interviewer, wrapped by the engine: it emits `interview.*` events and applies
   * `question.timeoutMs` (answering with `question.default` or `{ value: 'timeout' }`). When the run was started
   * without an interviewer, asking rejects with a clear error.
   */
  readonly interviewer: Interviewer;
  /** The LLM backend given to the run, if any. */
  readonly backend?: CodergenBackend;
  /**
   * The sandbox the run confines stage commands with (`runPipeline({ sandbox })`, CLI `--sandbox bwrap`): a handler
   * that starts a program passes its command line through `sandbox.wrap(...)` (the working directory and the stage
   * directory writable; the network only when the node allows it). Absent when the run asked for none.
   */
  readonly sandbox?: CommandSandbox;
  /** The run's artifact store (spec §5.5). */
  readonly artifacts: ArtifactStore;
  /**
   * The stage attempt's OpenTelemetry span context and tracer, for the handler's own spans (a tool command, an agent
   * process); pass it on to the backend as `CodergenRequest.telemetry`. Absent when the run has no tracer
   * (`PipelineTelemetry`).
   */
  readonly telemetry?: StageTelemetry;
  /** The run's clock; use it instead of timers so tests stay fast. */
  readonly clock: Clock;
  /**
   * The run's LLM usage and budget (`max_budget_usd`, `max_tokens`): `totals()` counts every model call of the run
   * (parallel branches and child runs included; each `agent.usage` event a stage emits is one), and `checkBudget()`,
   * called before each model call, throws `BudgetExceededError` once the run spent its budget. Absent in runtimes
   * built by hand (tests).
   */
  readonly usage?: RunUsage;
  /**
   * The run's secret masker (docs/architecture.md "Secrets"): mask whatever a handler writes to the stage
   * directory or sends to a model (`stdout.txt`, `prompt.md`). Absent in runtimes built by hand (tests); then
   * mask with `createSecretMasker()`.
   */
  readonly secrets?: SecretMasker;
  /**
   * Records the process group of a command the handler starts (`record(pgid)` returns the function that forgets
   * it), so a runner that takes the run over after this one died ends it first. Absent when the run does not live
   * in a run directory on disk.
   */
  readonly processGroups?: ProcessGroupRecorder;
  /**
   * Executes part of the graph with the engine's own loop (routing, retries, loop guards, events, stage
   * directories under `{stageDir}/branches/{branchId}/`) on the given context, until `stopBefore` matches, a
   * terminal node is reached, or the walk dead-ends. Never rejects for stage failures; see {@link BranchResult}.
   * Used by the parallel handler (one call per fan-out edge, concurrently). A branch stops before a terminal
   * (exit) node too, without executing it.
   *
   * Engine rule for `parallel` nodes: after a parallel node succeeds (any status but `fail`), the walk continues
   * at the first of `outcome.suggestedNextIds` that is a node of the graph (return the branches' common
   * `stoppedAt` there), else at `findJoinNode(graph, node.id)`; the fan-out edges are not selected again.
   */
  runBranch(options: RunBranchOptions): Promise<BranchResult>;
  /**
   * Starts a whole child pipeline in its own run directory, with the same interviewer, backend, handlers, clock
   * and event sink (its events carry `branchPath: [..., 'child:<nodeId>']`). Returns at once; observe it with
   * `status()`, await `result`. Used by the manager loop handler (spec §4.11).
   */
  runChild(options: RunChildOptions): ChildRunHandle;
  /**
   * Records the process group of a command this stage started in the run lock's holder record
   * (`run.lock.json` → `process_groups`), so that a runner taking over the lock after this process was killed ends
   * the group first. Call the returned function once the group has ended. Absent on runtimes built outside a run
   * (`createTestRuntime`).
   */
  recordProcessGroup?(processGroupId: number): () => void;
}
