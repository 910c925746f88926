export type { ApplyMethod, ApplyRunOptions, ApplyRunResult } from './apply-run.js';
export { applyRun } from './apply-run.js';
export type { CleanableRun, CleanReport, CleanWorkspacesOptions, KeptBranch } from './clean-workspaces.js';
export { cleanWorkspaces } from './clean-workspaces.js';
export type { WorkspaceProviderOptions } from './create-workspace-provider.js';
export {
  createWorkspaceProvider,
  DEFAULT_MAX_FILE_BYTES,
  workspaceRecordOf,
} from './create-workspace-provider.js';
export type { DiffRunOptions } from './diff-run.js';
export { diffRun } from './diff-run.js';
export { GitCommandError } from './errors/git-command-error.js';
export { WorkspaceError, type WorkspaceErrorReason } from './errors/workspace-error.js';
export type { FoundRepository } from './find-repository.js';
export { DEFAULT_IDENTITY, formatGitIdentity, type GitIdentity, parseGitIdentity } from './git-runner.js';
export type { GitWorkspaceRecord, WorkspaceKind } from './git-workspace.js';
export {
  DEFAULT_MAX_PATCH_CHARS,
  type ReadWorkspaceDiffOptions,
  readWorkspaceDiff,
} from './read-workspace-diff.js';
export { STAGE_TRAILERS, stageCommitMessage } from './stage-commit-message.js';
export { parseWorkspaceMode, WORKSPACE_MODES, type WorkspaceMode } from './workspace-mode.js';
