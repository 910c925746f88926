export type { ArtifactInfo, ArtifactStore, StoreArtifactOptions } from './artifact-store.js';
export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { CodergenBackend, CodergenRequest } from './codergen-backend.js';
export { Context } from './context.js';
export { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
export { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
export { ContextValueError } from './errors/context-value-error.js';
export { HandlerNotFoundError } from './errors/handler-not-found-error.js';
export type { ResumeErrorReason } from './errors/resume-error.js';
export { ResumeError } from './errors/resume-error.js';
export type { Handler } from './handler.js';
export type { HandlerRegistryOptions } from './handler-registry.js';
export { HandlerRegistry } from './handler-registry.js';
export type {
  BranchResult,
  ChildRunHandle,
  ChildRunStatus,
  HandlerRuntime,
  RunBranchOptions,
  RunChildOptions,
  StageFidelity,
} from './handler-runtime.js';
export type {
  Answer,
  AskOptions,
  Interviewer,
  Question,
  QuestionOption,
  QuestionType,
} from './interviewer.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json-value.js';
export { findNonJson } from './json-value.js';
export type { Outcome, OutcomeStatus, StageStatus } from './outcome.js';
export { isSuccessStatus } from './outcome.js';
export type {
  AgentTextEvent,
  AgentToolCallCompletedEvent,
  AgentToolCallStartedEvent,
  AgentUsageEvent,
  CheckpointSavedEvent,
  EmittableEvent,
  InterviewCompletedEvent,
  InterviewStartedEvent,
  InterviewTimeoutEvent,
  ParallelBranchCompletedEvent,
  ParallelBranchStartedEvent,
  ParallelCompletedEvent,
  ParallelStartedEvent,
  PipelineCancelledEvent,
  PipelineCompletedEvent,
  PipelineEvent,
  PipelineEventBase,
  PipelineEventType,
  PipelineFailedEvent,
  PipelineRestartedEvent,
  PipelineStartedEvent,
  StageCompletedEvent,
  StageCustomEvent,
  StageFailedEvent,
  StageLogEvent,
  StageRetryingEvent,
  StageScopedEvent,
  StageStartedEvent,
} from './pipeline-event.js';
export type { RunResult, RunStatus } from './run-result.js';
export type { Checkpoint, RunManifest, RunStore, StageRecord, StageStatusFile } from './run-store.js';
export { CHECKPOINT_VERSION } from './run-store.js';
