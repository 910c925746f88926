export type { WorkspaceProviderOptions } from './create-workspace-provider.js';
export {
  createWorkspaceProvider,
  DEFAULT_MAX_FILE_BYTES,
  workspaceRecordOf,
} from './create-workspace-provider.js';
export { GitCommandError } from './errors/git-command-error.js';
export { WorkspaceError, type WorkspaceErrorReason } from './errors/workspace-error.js';
export type { FoundRepository } from './find-repository.js';
export { DEFAULT_IDENTITY, type GitIdentity } from './git-runner.js';
export type { GitWorkspaceRecord, WorkspaceKind } from './git-workspace.js';
export { STAGE_TRAILERS, stageCommitMessage } from './stage-commit-message.js';
export { parseWorkspaceMode, WORKSPACE_MODES, type WorkspaceMode } from './workspace-mode.js';
