export type { ChildGraphResult, LoadChildGraphOptions } from './child-graph-file.js';
export {
  childDotfileOf,
  freshChildName,
  loadChildGraph,
  managerChildDotfile,
  resolveChildPath,
} from './child-graph-file.js';
export type { CodergenHandlerOptions } from './codergen-handler.js';
export { buildStagePrompt, createCodergenHandler, LAST_RESPONSE_MAX_CHARS } from './codergen-handler.js';
export type { CreateCodergenRequestOptions } from './codergen-request.js';
export { createCodergenRequest } from './codergen-request.js';
export type { ConditionalHandlerOptions } from './conditional-handler.js';
export { createConditionalHandler } from './conditional-handler.js';
export type { DefaultHandlersOptions } from './create-default-registry.js';
export { createDefaultRegistry, createHandlers } from './create-default-registry.js';
export type { SimulationScriptErrorOptions } from './errors/simulation-script-error.js';
export { SimulationScriptError } from './errors/simulation-script-error.js';
export { createExitHandler } from './exit-handler.js';
export type { FanInHandlerOptions, FanInPromptOptions } from './fan-in-handler.js';
export {
  BRANCH_OUTPUTS_VARIABLE,
  buildJudgePrompt,
  buildMergePrompt,
  createFanInHandler,
  findJudgedCandidate,
  renderBranchOutputs,
} from './fan-in-handler.js';
export {
  createForeachHandler,
  DEFAULT_ITEM_NAME,
  type ForeachItemResult,
} from './foreach-handler.js';
export type { HumanGateChoice } from './human-gate-choices.js';
export {
  findChoiceByText,
  findChoiceForAnswer,
  findQuestionOption,
  humanGateChoices,
} from './human-gate-choices.js';
export { autoApproveAnswer, createAutoApproveInterviewer } from './interviewers/auto-approve-interviewer.js';
export type { CallbackInterviewerOptions, InterviewerCallback } from './interviewers/callback-interviewer.js';
export { createCallbackInterviewer } from './interviewers/callback-interviewer.js';
export type { ConsoleInterviewer, ConsoleInterviewerOptions } from './interviewers/console-interviewer.js';
export { createConsoleInterviewer } from './interviewers/console-interviewer.js';
export type { QueueInterviewer, QueueInterviewerOptions } from './interviewers/queue-interviewer.js';
export { createQueueInterviewer } from './interviewers/queue-interviewer.js';
export type { InterviewRecording, RecordingInterviewer } from './interviewers/recording-interviewer.js';
export { createRecordingInterviewer } from './interviewers/recording-interviewer.js';
export type { RouteInterviewerOptions } from './interviewers/route-interviewer.js';
export { createRouteInterviewer } from './interviewers/route-interviewer.js';
export type { JoinCounts, JoinDecisionOptions } from './join-policy.js';
export { joinSettled, joinStatus, requiredSuccesses } from './join-policy.js';
export { loadSimulationScript } from './load-simulation-script.js';
export type { ChildStatusWord } from './manager-loop-handler.js';
export {
  createManagerLoopHandler,
  DEFAULT_MAX_CYCLES,
  DEFAULT_POLL_INTERVAL_MS,
  observeChild,
} from './manager-loop-handler.js';
export { createParallelHandler, DEFAULT_MAX_PARALLEL } from './parallel-handler.js';
export type { ParallelBranchResult } from './parallel-results.js';
export { BRANCH_OUTPUT_INLINE_MAX_CHARS, readParallelResults } from './parallel-results.js';
export type { RouteCoverage } from './route-coverage.js';
export { createRouteCoverage } from './route-coverage.js';
export type { RouteAim, RouteAimRequest, RouteFinder, RouteFinderOptions } from './route-finder.js';
export { createRouteFinder, distancesToExit } from './route-finder.js';
export { isSuccessfulCandidate, selectBestCandidate, statusRank } from './select-best-candidate.js';
export type { SimulationBackend, SimulationBackendOptions } from './simulation-backend.js';
export {
  createSimulationBackend,
  sampleJsonValue,
  simulatedReply,
  simulatedResponse,
} from './simulation-backend.js';
export type { CountSimulationCallsOptions, ReadSimulationCallsOptions } from './simulation-calls.js';
export { countSimulationCalls, readSimulationCalls } from './simulation-calls.js';
export type { ParseSimulationScriptOptions, SimulationScript, SimulationStep } from './simulation-script.js';
export { parseSimulationScript, readSimulationStep } from './simulation-script.js';
export type {
  CheckSimulationScriptKeysOptions,
  CheckSimulationScriptStepsOptions,
  LoadPipelineGraphsOptions,
  PipelineGraphs,
  PipelineOutcomeWordsOptions,
  SimulationScriptKeyCheck,
  UnknownScriptKey,
} from './simulation-script-keys.js';
export {
  checkSimulationScriptKeys,
  checkSimulationScriptSteps,
  loadPipelineGraphs,
  pipelineOutcomeWords,
} from './simulation-script-keys.js';
export { STEER_DIRECTORY, takeSteeringMessages, writeSteeringMessage } from './stage-files.js';
export { createStartHandler } from './start-handler.js';
export { parseStatusFile } from './status-file-schema.js';
export { createSubgraphHandler } from './subgraph-handler.js';
export type { RoutableToolOutputOptions, ToolRunOutput } from './tool-context.js';
export {
  routableToolOutput,
  TOOL_DIALECT_KEYS,
  TOOL_OUTPUT_MAX_CHARS,
  TOOL_STDERR_TAIL_CHARS,
  toolContextUpdates,
} from './tool-context.js';
export type { ToolHandlerOptions } from './tool-handler.js';
export { createToolHandler, TOOL_LIVE_OUTPUT_MAX_CHARS } from './tool-handler.js';
export type { WaitHumanHandlerOptions } from './wait-human-handler.js';
export { asksForText, createWaitHumanHandler, HUMAN_TEXT_INPUT } from './wait-human-handler.js';
