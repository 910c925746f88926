export type { AgentCliBackendOptions } from './agent-cli-backend-options.js';
export { AGENT_NAMES, AGENT_PACKAGES, type AgentName, isAgentName } from './agent-name.js';
export type { AgentPermissions } from './agent-permissions.js';
export { outcomeNote } from './agent-stage.js';
export {
  type AgentCliBackend,
  type ClaudeCodeBackendOptions,
  createClaudeCodeBackend,
} from './claude-code-backend.js';
export { type CodexBackendOptions, createCodexBackend } from './codex-backend.js';
export { AgentCliMissingError, type AgentCliMissingErrorOptions } from './errors/agent-cli-missing-error.js';
export { type AgentCliLocation, type FindAgentCliOptions, findAgentCli } from './find-agent-cli.js';
export { createGeminiCliBackend, type GeminiCliBackendOptions } from './gemini-cli-backend.js';
export { TRANSCRIPT_FILE } from './stage-files.js';
