export type { CheckpointHistoryEntry, CheckpointHistoryPage } from './checkpoint-history.js';
export {
  checkpointHistoryEntrySchema,
  checkpointHistoryPageSchema,
  DEFAULT_CHECKPOINT_PAGE_SIZE,
  MAX_CHECKPOINT_PAGE_SIZE,
} from './checkpoint-history.js';
export type { CreateServerAppOptions } from './create-server-app.js';
export { createServerApp, DEFAULT_MAX_BODY_BYTES, isLoopbackHostHeader } from './create-server-app.js';
export type { ApiErrorCode, ApiErrorOptions } from './errors/api-error.js';
export { ApiError } from './errors/api-error.js';
export { ServerOptionError } from './errors/server-option-error.js';
export type { FindShellAccessOptions, ShellAccess } from './find-shell-access.js';
export { describeShellAccess, findShellAccess } from './find-shell-access.js';
export { forkContextKeyProblem } from './fork-context-key-problem.js';
export type {
  AnswerInput,
  HttpInterviewer,
  HttpInterviewerOptions,
  PendingQuestion,
} from './http-interviewer.js';
export { createHttpInterviewer, toAnswer } from './http-interviewer.js';
export type { RequestRecord } from './observe-requests.js';
export type { PipelineLimits } from './pipeline-limits.js';
export { DEFAULT_PIPELINE_LIMITS } from './pipeline-limits.js';
export type { NodeDisplayStatus, RankDirection, RenderRunGraphOptions } from './render-run-graph.js';
export { isRankDirection, renderRunGraph, runGraphDot } from './render-run-graph.js';
export type {
  BackplaneQueuedRun,
  BackplaneRunQueue,
  RunBackplane,
  SharedRunStore,
} from './run-backplane.js';
export type {
  BackendFactory,
  BackendRequest,
  LiveRun,
  RunManagerMemoryCounts,
  RunManagerOptions,
  StartRunRequest,
} from './run-manager.js';
export { DEFAULT_ENDED_RUNS_KEPT, RunManager } from './run-manager.js';
export type { RunDetails, RunState, RunSummary } from './run-summary.js';
export type { RunUsage } from './run-totals.js';
export type {
  CheckReadinessOptions,
  MetricsExposition,
  ReadinessCheck,
  ReadinessReport,
  ServerHealth,
} from './server-health.js';
export { checkReadiness } from './server-health.js';
export type { ServerInfo, SimulationMode } from './server-info.js';
export { serverInfoSchema, simulationModeSchema } from './server-info.js';
export { SERVER_METRICS } from './server-metrics.js';
export type { SharedStoreBackplaneOptions } from './shared-store-backplane.js';
export { createSharedStoreBackplane } from './shared-store-backplane.js';
export type { StageDirectory, StageDirectoryFileName } from './stage-directory-files.js';
export { STAGE_DIRECTORY_FILES, stageDirectorySchema } from './stage-directory-files.js';
export type { AttractorServer, ServerApp, StartServerOptions } from './start-server.js';
export { openServerApp, startServer } from './start-server.js';
export { DEFAULT_HEARTBEAT_MS } from './stream-sse-with-heartbeat.js';
export { withoutAgentShellTransform } from './without-agent-shell.js';
export type {
  RunDiffResponse,
  StageDiffResponse,
  WorkspaceDiffRoutesOptions,
} from './workspace-diff-routes.js';
export { mountWorkspaceDiffRoutes } from './workspace-diff-routes.js';
