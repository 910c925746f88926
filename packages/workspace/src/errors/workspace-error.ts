import { AttractorError, isErrorOf } from '@attractor/errors';

/** Why a workspace operation was refused. */
export type WorkspaceErrorReason =
  /** `git` mode was asked for a directory that is not inside a git repository. */
  | 'not_a_repository'
  /** The run works in place: it has no workspace to diff, apply or clean. */
  | 'no_workspace'
  /** The stage named (`node[@visit]`) did not run, or changed no file. */
  | 'no_commit'
  /** `apply` would overwrite or conflict with changes in the target checkout. */
  | 'conflict'
  /** The asked operation does not apply to this workspace (e.g. `--merge` of a `copy` workspace). */
  | 'unsupported'
  /** A mode or setting is not one of the known values. */
  | 'invalid_setting';

/**
 * A workspace operation refused for a reason the user can fix (README "Workspaces"); the message says where and how.
 */
export class WorkspaceError extends AttractorError<'WORKSPACE_REFUSED'> {
  override readonly name = 'WorkspaceError';
  readonly reason: WorkspaceErrorReason;
  /** The paths involved (conflicting files), when any. */
  readonly paths: readonly string[];
  readonly retryable = false;

  constructor(options: { reason: WorkspaceErrorReason; message: string; paths?: readonly string[] }) {
    super({ code: 'WORKSPACE_REFUSED', message: options.message });
    this.reason = options.reason;
    this.paths = options.paths ?? [];
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(WorkspaceError);
}
