/** The run's usage totals (the engine's type, kept here for code that imported it from this package). */
export type { UsageTotals } from '@attractor/engine';
export { DEFAULT_COMMAND_TIMEOUT_MS, MAX_COMMAND_TIMEOUT_MS } from './agent-tools.js';
export type {
  BuiltInProviderInfo,
  BuiltInProviderName,
  ProviderSettings,
} from './built-in-providers.js';
export {
  BUILT_IN_PROVIDERS,
  inferProvider,
  isBuiltInProvider,
  providerSettingsFromEnv,
} from './built-in-providers.js';
export type { CheckLlmStagesOptions, LlmStageProblem, LlmStagesCheck } from './check-llm-stages.js';
export { checkLlmStages } from './check-llm-stages.js';
export type { AiSdkBackend, AiSdkBackendOptions } from './create-ai-sdk-backend.js';
export { createAiSdkBackend, DEFAULT_MAX_TURNS } from './create-ai-sdk-backend.js';
export type { BackendConfigurationSetting } from './errors/backend-configuration-error.js';
export { BackendConfigurationError } from './errors/backend-configuration-error.js';
export type { ModelCallFailure } from './errors/model-call-error.js';
export { ModelCallError } from './errors/model-call-error.js';
export { PathOutsideWorkdirError } from './errors/path-outside-workdir-error.js';
export { filterEnvironment, isSecretEnvName, SECRET_ENV_FRAGMENTS } from './filter-environment.js';
export type {
  McpConnections,
  McpHttpServer,
  McpServerConfig,
  McpStageTool,
  McpStdioServer,
} from './mcp-servers.js';
export {
  createMcpConnections,
  describeMcpServer,
  formatCallToolResult,
  mcpSecretValues,
} from './mcp-servers.js';
export type { ModelPrice, PriceTable, TokenUsage } from './price-table.js';
export { costUsd, DEFAULT_PRICES, parsePriceTable, priceOf, priceTableSchema } from './price-table.js';
export { reasoningProviderOptions, THINKING_BUDGET_TOKENS } from './reasoning-provider-options.js';
export type { ModelProvider, ModelRegistry, ProviderTarget } from './resolve-model.js';
export { createModelRegistry, stageModelChoice } from './resolve-model.js';
export { PROMPT_FILE, RESPONSE_FILE } from './response-file.js';
export { selectTools } from './select-tools.js';
export { MAX_RUNS_WITH_SESSIONS } from './session-store.js';
export { usageContextUpdates } from './stage-outcome.js';
export { TRANSCRIPT_FILE } from './transcript-file.js';
export type { TransientFailure, TransientRetryPolicy, TransientRetryWait } from './transient-retry.js';
export {
  DEFAULT_TRANSIENT_RETRY_POLICY,
  retryAfterMs,
  TRANSIENT_STATUS_CODES,
  transientFailure,
  transientRetryDelayMs,
} from './transient-retry.js';
export type { ToolOutputLimit, TruncationMode } from './truncate-output.js';
export {
  DEFAULT_TOOL_OUTPUT_LIMITS,
  truncateLines,
  truncateOutput,
  truncateToolOutput,
} from './truncate-output.js';
export { resolveInWorkdir } from './workdir-files.js';
