export { DEFAULT_COMMAND_TIMEOUT_MS, MAX_COMMAND_TIMEOUT_MS } from './agent-tools.js';
export type { AiSdkBackend, AiSdkBackendOptions } from './create-ai-sdk-backend.js';
export { createAiSdkBackend, DEFAULT_MAX_TURNS } from './create-ai-sdk-backend.js';
export type { BackendConfigurationSetting } from './errors/backend-configuration-error.js';
export { BackendConfigurationError } from './errors/backend-configuration-error.js';
export type { ModelCallFailure } from './errors/model-call-error.js';
export { ModelCallError } from './errors/model-call-error.js';
export { PathOutsideWorkdirError } from './errors/path-outside-workdir-error.js';
export { filterEnvironment, isSecretEnvName, SECRET_ENV_FRAGMENTS } from './filter-environment.js';
export { reasoningProviderOptions, THINKING_BUDGET_TOKENS } from './reasoning-provider-options.js';
export type { ModelProvider } from './resolve-model.js';
export { inferProvider } from './resolve-model.js';
export { RESPONSE_FILE } from './response-file.js';
export { selectTools } from './select-tools.js';
export { TRANSCRIPT_FILE } from './transcript-file.js';
export type { ToolOutputLimit, TruncationMode } from './truncate-output.js';
export {
  DEFAULT_TOOL_OUTPUT_LIMITS,
  truncateLines,
  truncateOutput,
  truncateToolOutput,
} from './truncate-output.js';
export { resolveInWorkdir } from './workdir-files.js';
