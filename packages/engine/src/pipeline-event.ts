/**
 * The typed events of spec §9.6, one interface per event and one `PipelineEvent` union
 * (CONTRIBUTING.md "Files and names"). Every event goes to the `onEvent` callback, the event emitter, the
 * async iterator, and `{logsRoot}/events.jsonl`.
 */

import type { ForeachMode } from '@attractor/graph';
import type { Answer, Question } from './interviewer.js';
import type { JsonValue } from './json-value.js';
import type { OutcomeStatus } from './outcome.js';
import type { WorkspaceSummary } from './run-workspace.js';

/** Fields the engine stamps on every event. */
export interface PipelineEventBase {
  /** Position in the run's event stream, from 1, strictly increasing across resumes of the same run directory. */
  readonly seq: number;
  /** When the event was emitted (ISO-8601, from the injected clock). */
  readonly timestamp: string;
  /** The run id (the run directory's name). */
  readonly runId: string;
  /**
   * For events inside parallel branches or other sub-walks: the branch ids from the outermost to the innermost,
   * e.g. `['fanout/a']`. Absent for events of the top-level walk.
   */
  readonly branchPath?: readonly string[];
}

/** `PipelineStarted(name, id)`: the run begins (or resumes). */
export interface PipelineStartedEvent extends PipelineEventBase {
  readonly type: 'pipeline.started';
  /** The graph's name (`digraph <name>`). */
  readonly name: string;
  readonly goal: string;
  readonly logsRoot: string;
  /** True when this is `resumePipeline` continuing an earlier run. */
  readonly resumed: boolean;
  /** The node the walk starts at. */
  readonly startNodeId: string;
  /**
   * Set when this run is a fork starting (`forkRun`, `attractor fork`): the source run's id and the completed stage
   * (node and visit) whose checkpoint it starts from. Absent when a fork is resumed later.
   */
  readonly forkedFrom?: { readonly runId: string; readonly node: string; readonly visit: number };
  /** The run's workspace (README "Workspaces"), when it has one; absent for a run working in place. */
  readonly workspace?: WorkspaceSummary;
}

/** `PipelineCompleted(duration, artifact_count)`: the run reached the exit with every goal gate satisfied. */
export interface PipelineCompletedEvent extends PipelineEventBase {
  readonly type: 'pipeline.completed';
  /** Wall time of this invocation, in milliseconds. */
  readonly durationMs: number;
  readonly artifactCount: number;
  /** Number of node executions in the whole run. */
  readonly completedCount: number;
}

/** `PipelineFailed(error, duration)`: the run ended in FAIL. */
export interface PipelineFailedEvent extends PipelineEventBase {
  readonly type: 'pipeline.failed';
  /** The failure reason, e.g. `no eligible edge from review (outcome=fail)`. */
  readonly error: string;
  readonly durationMs: number;
  /** The node the run stopped at, when there is one. */
  readonly nodeId?: string;
}

/** The run was cancelled through its AbortSignal; the last checkpoint is intact and can be resumed. */
export interface PipelineCancelledEvent extends PipelineEventBase {
  readonly type: 'pipeline.cancelled';
  readonly reason: string;
  readonly durationMs: number;
}

/**
 * The run stopped at a human gate to wait for an answer without holding a process (issue 18: a worker suspends it
 * and is freed). Not an end: the answer (`attractor answer <run> <key>`, the server's API or web UI), or the gate's
 * deadline, queues the run again and it resumes from its checkpoint with a `pipeline.started` (`resumed: true`)
 * that asks the same question (same `question.id`) and takes the stored answer. Run indexes show such a run as
 * `waiting`. Written by `@attractor/worker` in place of the `pipeline.cancelled` of the suspension; a real cancel
 * still logs `pipeline.cancelled`.
 */
export interface PipelineSuspendedEvent extends PipelineEventBase {
  readonly type: 'pipeline.suspended';
  /** The gate's node id (the node the checkpoint resumes at). */
  readonly stage: string;
  /** The open question: its `id` (node, visit, attempt) keys the answer; `text` and `options` say what is asked. */
  readonly question: Question;
  /**
   * When the gate times out (ISO-8601, from when the question was first asked plus the gate's `timeout`):
   * `human.default_choice` applies then, whether or not a worker is running. Absent for a gate without a timeout.
   */
  readonly deadlineAt?: string;
  /** Wall time of this invocation until it suspended, in milliseconds. */
  readonly durationMs: number;
}

/** An edge with `loop_restart=true` ended this run directory; the run continues in `newLogsRoot`. */
export interface PipelineRestartedEvent extends PipelineEventBase {
  readonly type: 'pipeline.restarted';
  /**
   * The continuation: the sibling directory `<dir>-restart-<n>`, or, on another store than the file store, that
   * store's name for it (`RunStore.logsRoot`, e.g. `postgres://…#<run id>-restart-1`).
   */
  readonly newLogsRoot: string;
  /** The node the new run starts at (the edge's target). */
  readonly targetNodeId: string;
}

/** Fields shared by the stage events. */
interface StageEventFields {
  readonly nodeId: string;
  /** Step number of this node execution in the walk, from 1 (spec §9.6 `index`). */
  readonly index: number;
  /** Which visit of the node this is, from 1 (retries inside one visit do not count). */
  readonly visit: number;
  /** Which attempt within the visit, from 1. */
  readonly attempt: number;
}

/** `StageStarted(name, index)`: an attempt of a node begins. */
export interface StageStartedEvent extends PipelineEventBase, StageEventFields {
  readonly type: 'stage.started';
  readonly label: string;
  /** The resolved handler type, e.g. `codergen`. */
  readonly handlerType: string;
  /**
   * The edge the walk came along to this node: its index in `graph.edges` (declaration order). Absent for the start
   * node, a jump (`retry_target`, a goal gate, a resume), the join after a parallel block and a branch's first node.
   */
  readonly edgeIndex?: number;
}

/** `StageCompleted(name, index, duration)`: a node finished (with any status that is not retried) and was recorded. */
export interface StageCompletedEvent extends PipelineEventBase, StageEventFields {
  readonly type: 'stage.completed';
  readonly status: OutcomeStatus;
  readonly durationMs: number;
  readonly preferredLabel?: string;
  readonly notes?: string;
  readonly failureReason?: string;
  /** The workspace commit holding the stage's file changes; absent when it changed none or the run works in place. */
  readonly commit?: string;
}

/** `StageFailed(name, index, error, will_retry)`: an attempt returned FAIL/RETRY or threw. */
export interface StageFailedEvent extends PipelineEventBase, StageEventFields {
  readonly type: 'stage.failed';
  readonly error: string;
  readonly willRetry: boolean;
  readonly durationMs: number;
}

/** `StageRetrying(name, index, attempt, delay)`: the engine waits `delayMs` before the next attempt. */
export interface StageRetryingEvent extends PipelineEventBase, StageEventFields {
  readonly type: 'stage.retrying';
  /** Milliseconds before the next attempt. */
  readonly delayMs: number;
}

/** `ParallelStarted(branch_count)`: a parallel node starts its branches. */
export interface ParallelStartedEvent extends PipelineEventBase {
  readonly type: 'parallel.started';
  readonly nodeId: string;
  readonly branchCount: number;
}

/** `ParallelBranchStarted(branch, index)`. */
export interface ParallelBranchStartedEvent extends PipelineEventBase {
  readonly type: 'parallel.branch.started';
  readonly nodeId: string;
  /** The branch id (usually the edge target). */
  readonly branch: string;
  /** Position of the branch in edge declaration order, from 0. */
  readonly index: number;
}

/** `ParallelBranchCompleted(branch, index, duration, success)`. */
export interface ParallelBranchCompletedEvent extends PipelineEventBase {
  readonly type: 'parallel.branch.completed';
  readonly nodeId: string;
  readonly branch: string;
  readonly index: number;
  readonly durationMs: number;
  readonly success: boolean;
  readonly status: OutcomeStatus;
}

/** `ParallelCompleted(duration, success_count, failure_count)`. */
export interface ParallelCompletedEvent extends PipelineEventBase {
  readonly type: 'parallel.completed';
  readonly nodeId: string;
  readonly durationMs: number;
  readonly successCount: number;
  readonly failureCount: number;
}

/** A `foreach` node starts running its body over the items of its list (README "Typed data"). */
export interface ForeachStartedEvent extends PipelineEventBase {
  readonly type: 'foreach.started';
  readonly nodeId: string;
  /** The number of items in the list. */
  readonly itemCount: number;
  readonly mode: ForeachMode;
  /** Items finished by an earlier attempt or run leg, kept and not run again. */
  readonly keptCount: number;
}

/** One item of a `foreach` starts; its stages' events carry `items/<index>` in `branchPath`. */
export interface ForeachItemStartedEvent extends PipelineEventBase {
  readonly type: 'foreach.item.started';
  readonly nodeId: string;
  /** The item's position in the list, from 0. */
  readonly index: number;
  /** The item, short: a string as it is, anything else as JSON, cut to 200 characters (with `…`). */
  readonly item?: string;
}

/** One item of a `foreach` ended (or was kept from an earlier attempt or run leg: `kept`). */
export interface ForeachItemCompletedEvent extends PipelineEventBase {
  readonly type: 'foreach.item.completed';
  readonly nodeId: string;
  readonly index: number;
  /** The item, short, as in `foreach.item.started`. */
  readonly item?: string;
  readonly durationMs: number;
  readonly success: boolean;
  /** The item's status: its body's last status, `fail`, or `cancelled`. */
  readonly status: string;
  readonly failureReason?: string;
  /** True when the item finished in an earlier attempt or run leg and was not run again. */
  readonly kept?: boolean;
}

/** A `foreach` node finished its items. */
export interface ForeachCompletedEvent extends PipelineEventBase {
  readonly type: 'foreach.completed';
  readonly nodeId: string;
  readonly durationMs: number;
  readonly successCount: number;
  readonly failureCount: number;
  /** Items never started (a failure under on_item_error=fail stops the rest, or the run was cancelled). */
  readonly notStartedCount: number;
}

/** `InterviewStarted(question, stage)`: a question was put to the interviewer. */
export interface InterviewStartedEvent extends PipelineEventBase {
  readonly type: 'interview.started';
  readonly question: Question;
  readonly stage: string;
}

/** `InterviewCompleted(question, answer, duration)`. */
export interface InterviewCompletedEvent extends PipelineEventBase {
  readonly type: 'interview.completed';
  readonly question: Question;
  readonly answer: Answer;
  readonly durationMs: number;
}

/** `InterviewTimeout(question, stage, duration)`: no answer within `question.timeoutMs`. */
export interface InterviewTimeoutEvent extends PipelineEventBase {
  readonly type: 'interview.timeout';
  readonly question: Question;
  readonly stage: string;
  readonly durationMs: number;
  /** The answer used instead: `question.default` or `{ value: 'timeout' }`. */
  readonly answer: Answer;
}

/** `CheckpointSaved(node_id)`: `checkpoint.json` was written after `nodeId`. */
export interface CheckpointSavedEvent extends PipelineEventBase {
  readonly type: 'checkpoint.saved';
  readonly nodeId: string;
  /** The node the run continues at, when one was selected. */
  readonly nextNodeId?: string;
}

/** Fields of every stage-scoped event a handler emits through `runtime.emit` (the engine adds `nodeId`). */
interface StageScopedFields {
  /** The node whose handler emitted the event. */
  readonly nodeId: string;
}

/** An agent (LLM) started a tool call. */
export interface AgentToolCallStartedEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'agent.tool_call.started';
  readonly toolName: string;
  readonly callId: string;
  /** Tool arguments (secrets redacted by the engine). */
  readonly arguments: JsonValue;
}

/** An agent (LLM) tool call finished. */
export interface AgentToolCallCompletedEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'agent.tool_call.completed';
  readonly toolName: string;
  readonly callId: string;
  /** The tool's output, truncated by the emitter as it sees fit. */
  readonly output: string;
  readonly isError: boolean;
  readonly durationMs: number;
}

/** Text produced by an agent: a streamed delta or a whole message. */
export interface AgentTextEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'agent.text';
  readonly text: string;
  /** True when `text` is a streamed fragment rather than a whole message. */
  readonly delta: boolean;
}

/** Token usage reported by a model call. Counts are in tokens. */
export interface AgentUsageEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'agent.usage';
  /** All input tokens, cached ones included. */
  readonly inputTokens: number;
  /** All output tokens, reasoning ones included. */
  readonly outputTokens: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`), when reported. */
  readonly cachedInputTokens?: number;
  /** Reasoning tokens (part of `outputTokens`), when reported. */
  readonly reasoningTokens?: number;
  readonly model?: string;
  /**
   * Cost of the calls this event counts, in US dollars: from the AI SDK backend's price table (`'unknown'` for a
   * model without a price), or as an agent CLI reports it (Claude Code does). Absent when the backend prices nothing.
   */
  readonly costUsd?: number | 'unknown';
}

/**
 * A coding-agent CLI (Claude Code, Codex, Gemini CLI) started or resumed its session for a stage. `sessionId` is
 * the agent's own id: stages that share a thread key under `full` fidelity resume it (spec §5.4).
 */
export interface AgentSessionStartedEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'agent.session.started';
  /** Which agent runs the stage: `claude-code`, `codex`, `gemini-cli`. */
  readonly agent: string;
  readonly sessionId: string;
  /** True when the stage continues the session of an earlier stage (`full` fidelity). */
  readonly resumed: boolean;
  /** The model the agent reports, when it does. */
  readonly model?: string;
}

/** A free-form log line of a stage (e.g. a tool command's progress, a steering message applied). */
export interface StageLogEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'stage.log';
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
}

/** Any other stage-scoped event: a name and JSON data, for custom handlers. */
export interface StageCustomEvent extends PipelineEventBase, StageScopedFields {
  readonly type: 'stage.custom';
  readonly name: string;
  readonly data: JsonValue;
}

/** Every event the engine emits (spec §9.6), discriminated by `type`. */
export type PipelineEvent =
  | PipelineStartedEvent
  | PipelineCompletedEvent
  | PipelineFailedEvent
  | PipelineCancelledEvent
  | PipelineSuspendedEvent
  | PipelineRestartedEvent
  | StageStartedEvent
  | StageCompletedEvent
  | StageFailedEvent
  | StageRetryingEvent
  | ParallelStartedEvent
  | ParallelBranchStartedEvent
  | ParallelBranchCompletedEvent
  | ParallelCompletedEvent
  | ForeachStartedEvent
  | ForeachItemStartedEvent
  | ForeachItemCompletedEvent
  | ForeachCompletedEvent
  | InterviewStartedEvent
  | InterviewCompletedEvent
  | InterviewTimeoutEvent
  | CheckpointSavedEvent
  | AgentToolCallStartedEvent
  | AgentToolCallCompletedEvent
  | AgentTextEvent
  | AgentUsageEvent
  | AgentSessionStartedEvent
  | StageLogEvent
  | StageCustomEvent;

/** The `type` strings of {@link PipelineEvent}. */
export type PipelineEventType = PipelineEvent['type'];

/** The events a handler emits about its own work; the engine fills in `nodeId` when omitted. */
export type StageScopedEvent =
  | AgentToolCallStartedEvent
  | AgentToolCallCompletedEvent
  | AgentTextEvent
  | AgentUsageEvent
  | AgentSessionStartedEvent
  | StageLogEvent
  | StageCustomEvent;

/** Removes the stamped fields from each member of a union. */
type Unstamped<TEvent> = TEvent extends PipelineEventBase ? Omit<TEvent, keyof PipelineEventBase> : never;

/** Makes `nodeId` optional in each member of a union. */
type OptionalNodeId<TEvent> = TEvent extends { readonly nodeId: string }
  ? Omit<TEvent, 'nodeId'> & { readonly nodeId?: string }
  : never;

/**
 * An event as a handler passes it to `runtime.emit`: any {@link PipelineEvent} without the fields the engine
 * stamps (`seq`, `timestamp`, `runId`, `branchPath`). For the {@link StageScopedEvent} types (`agent.*`,
 * `stage.log`, `stage.custom`) `nodeId` may be omitted and defaults to the running node. The parallel handler
 * emits the `parallel.*` events this way.
 *
 * @example
 * runtime.emit({ type: 'agent.text', text: 'Done.', delta: false });
 */
export type EmittableEvent =
  | Unstamped<Exclude<PipelineEvent, StageScopedEvent>>
  | OptionalNodeId<Unstamped<StageScopedEvent>>;
