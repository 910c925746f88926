export type { AimAtEdgeOptions, EdgeAim } from './aim-at-edge.js';
export { aimAtEdge } from './aim-at-edge.js';
export type { ArtifactInfo, ArtifactStore, StoreArtifactOptions } from './artifact-store.js';
export type { BuildPreambleOptions } from './build-preamble.js';
export { buildPreamble, PREAMBLE_BUDGET_CHARS } from './build-preamble.js';
export type { CancelRequestFile, RequestRunCancelOptions } from './cancel-request-file.js';
export { CANCEL_REQUEST_FILE, requestRunCancel } from './cancel-request-file.js';
export type { BudgetStop, RunBudget } from './check-budget.js';
export {
  AGENT_TOTAL_COST_KEY,
  budgetStop,
  budgetStopReason,
  USAGE_TOTAL_COST_KEY,
  USAGE_TOTAL_TOKENS_KEY,
} from './check-budget.js';
export { checkpointSchema, parseCheckpoint } from './checkpoint-schema.js';
export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
export type { CodergenBackend, CodergenRequest } from './codergen-backend.js';
export type { BubblewrapOptions, CommandSandbox, SandboxedCommand } from './command-sandbox.js';
export { checkBubblewrap, createBubblewrapSandbox } from './command-sandbox.js';
export { Context } from './context.js';
export type {
  Decision,
  DecisionEffect,
  DecisionRules,
  DecisionSnapshot,
  NextStep,
  SnapshotChange,
  WalkEnd,
  WalkEvent,
} from './decide.js';
export { decide } from './decide.js';
export type { DeclaredHandler, HandlerDefinition, HandlerInput } from './define-handler.js';
export { defineHandler, isDeclaredHandler } from './define-handler.js';
export { ArtifactNotFoundError } from './errors/artifact-not-found-error.js';
export { BudgetExceededError } from './errors/budget-exceeded-error.js';
export { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
export { ContextValueError } from './errors/context-value-error.js';
export {
  FileRefusedError,
  type FileRefusedReason,
} from './errors/file-refused-error.js';
export { HandlerNotFoundError } from './errors/handler-not-found-error.js';
export { InputsInvalidError } from './errors/inputs-invalid-error.js';
export type { StoreNameKind } from './errors/invalid-store-name-error.js';
export { InvalidStoreNameError } from './errors/invalid-store-name-error.js';
export type { ResumeErrorReason } from './errors/resume-error.js';
export { ResumeError } from './errors/resume-error.js';
export { RunDirectoryInUseError } from './errors/run-directory-in-use-error.js';
export { RunLockedError } from './errors/run-locked-error.js';
export type { SandboxUnavailableReason } from './errors/sandbox-unavailable-error.js';
export { SandboxUnavailableError } from './errors/sandbox-unavailable-error.js';
export type { EvaluateRunConditionOptions } from './evaluate-run-condition.js';
export { evaluateRunCondition } from './evaluate-run-condition.js';
export type { PipelineEventMap } from './event-bus.js';
export type { ArtifactStoreOptions } from './file-artifact-store.js';
export { createArtifactStore, DEFAULT_ARTIFACT_THRESHOLD_BYTES } from './file-artifact-store.js';
export type { FileRunCatalogOptions } from './file-run-catalog.js';
export { createFileRunCatalog } from './file-run-catalog.js';
export type { FileRunStoreOptions } from './file-run-store.js';
export { createFileRunStore } from './file-run-store.js';
export type { ForkRunOptions } from './fork-run.js';
export { forkRun, startForkedPipeline } from './fork-run.js';
export { formatDuration } from './format-duration.js';
export type {
  FindUnsatisfiedGoalGateOptions,
  ResolveRetryTargetOptions,
  RetryTarget,
  RetryTargetSource,
} from './goal-gates.js';
export { findUnsatisfiedGoalGate, resolveRetryTarget } from './goal-gates.js';
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
export { ITEM_CONTEXT_PREFIX, itemsOfContext } from './item-context.js';
export type { JsonSchemaProblem, JsonSchemaValidator } from './json-schema-validator.js';
export { createJsonSchemaValidator } from './json-schema-validator.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json-value.js';
export { createMaskingRunStore } from './masking-run-store.js';
export type { BranchWrites, MergeBranchStateOptions, MergeBranchStateResult } from './merge-branch-state.js';
export { isBookkeepingKey, mergeBranchState } from './merge-branch-state.js';
export type { Outcome, OutcomeStatus, StageStatus } from './outcome.js';
export { isSuccessStatus } from './outcome.js';
export type {
  AgentSessionStartedEvent,
  AgentTextEvent,
  AgentToolCallCompletedEvent,
  AgentToolCallStartedEvent,
  AgentUsageEvent,
  CheckpointSavedEvent,
  EmittableEvent,
  ForeachCompletedEvent,
  ForeachItemCompletedEvent,
  ForeachItemStartedEvent,
  ForeachStartedEvent,
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
  PipelineSuspendedEvent,
  StageCompletedEvent,
  StageCustomEvent,
  StageFailedEvent,
  StageLogEvent,
  StageRetryingEvent,
  StageScopedEvent,
  StageStartedEvent,
} from './pipeline-event.js';
export type { ReadInputSchemaOptions, ValidatePipelineInputsOptions } from './pipeline-inputs.js';
export {
  INPUT_CONTEXT_PREFIX,
  inputContextValues,
  inputsOfContext,
  parseInputText,
  readInputSchema,
  validatePipelineInputs,
} from './pipeline-inputs.js';
export type { PipelineTelemetry, StageTelemetry } from './pipeline-telemetry.js';
export { TELEMETRY_ATTRIBUTES, TELEMETRY_METRICS } from './pipeline-telemetry.js';
export type { ProcessGroupRecorder } from './process-group-file.js';
export { DEFAULT_MAX_FILE_BYTES, type ReadTextFileOptions, readTextFileSync } from './read-text-file.js';
export {
  createSecretMasker,
  isSecretEnvName,
  isSecretKey,
  MIN_SECRET_LENGTH,
  REDACTED,
  redactSecrets,
  SECRET_ENV_NAME_FRAGMENTS,
  SECRET_TOKEN_PATTERN,
  type SecretMasker,
  type SecretMaskerOptions,
  type SecretValuesFromEnvOptions,
  secretValuesFromEnv,
} from './redact-secrets.js';
export type { ResolveFidelityOptions, ResolveThreadKeyOptions } from './resolve-fidelity.js';
export { DEFAULT_FIDELITY, resolveFidelity, resolveThreadKey } from './resolve-fidelity.js';
export type { BackoffConfig, RetryDelayOptions, RetryPolicy, RetryPresetName } from './retry-policy.js';
export { buildRetryPolicy, DEFAULT_BACKOFF, RETRY_PRESETS, retryDelayMs } from './retry-policy.js';
export { runDurationMs } from './run-duration.js';
export type { AcquireRunLockOptions, RunLock, RunLockHolder } from './run-lock.js';
export type { RunMetricsOptions } from './run-metrics.js';
export { createRunMetrics } from './run-metrics.js';
export type {
  PipelineRun,
  PipelineServicesOptions,
  ResumePipelineOptions,
  RunPipelineOptions,
} from './run-pipeline.js';
export {
  defaultLogsRoot,
  resumePipeline,
  runPipeline,
  startPipeline,
  startResumedPipeline,
} from './run-pipeline.js';
export type { RunResult, RunStatus } from './run-result.js';
export type {
  BlobData,
  Checkpoint,
  CheckpointOrigin,
  LocalStageDirectory,
  ReadRunOptions,
  RunCatalog,
  RunIndexEntry,
  RunIndexFilter,
  RunIndexStatus,
  RunManifest,
  RunRecord,
  RunStore,
  StageRecord,
  StageStatusFile,
  StoredFileInfo,
} from './run-store.js';
export { CHECKPOINT_VERSION, readRun } from './run-store.js';
export type {
  HandlerWorkspace,
  OpenedWorkspace,
  RunWorkspace,
  StageCommit,
  StageCommitRequest,
  WorkspaceDiff,
  WorkspaceDiffRequest,
  WorkspaceFileChange,
  WorkspaceMergeBranch,
  WorkspaceMergeRequest,
  WorkspaceMergeResult,
  WorkspaceOpenRequest,
  WorkspaceProvider,
  WorkspaceRecord,
  WorkspaceSummary,
} from './run-workspace.js';
export type {
  EdgeConditionContext,
  EdgeSelection,
  EdgeSelectionReason,
  SelectEdgeOptions,
} from './select-edge.js';
export { normalizeLabel, selectEdge } from './select-edge.js';
export type { StageWorkspace } from './stage-workspace.js';
export { createStageWorkspace } from './stage-workspace.js';
export { checkArtifactId, checkRelativeName, collectBlobData } from './store-names.js';
export type { RunUsage } from './usage-ledger.js';
export type { UsageTotals } from './usage-totals.js';
export {
  LEGACY_AGENT_COST_KEY,
  USAGE_TOTAL_KEYS,
  usageTotalsFromContext,
  usageTotalsToContext,
  ZERO_USAGE_TOTALS,
} from './usage-totals.js';
export { TIMEOUT_ANSWER } from './wrap-interviewer.js';
