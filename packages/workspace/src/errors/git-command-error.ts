import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * A git command the workspace ran failed (README "Workspaces"): a repository git cannot read, a full disk, a
 * missing `git` binary. Carries the command, its exit code and the end of its stderr.
 */
export class GitCommandError extends AttractorError<'GIT_COMMAND_FAILED'> {
  override readonly name = 'GitCommandError';
  /** The git arguments, e.g. `['worktree', 'add', ...]`. */
  readonly args: readonly string[];
  /** The directory it ran in. */
  readonly cwd: string;
  /** Its exit code, undefined when it did not start or was killed. */
  readonly exitCode: number | undefined;
  /** The end of its stderr (at most 2,000 characters). */
  readonly stderr: string;
  readonly retryable = false;

  constructor(options: {
    args: readonly string[];
    cwd: string;
    exitCode: number | undefined;
    stderr: string;
    cause?: unknown;
  }) {
    const stderr = options.stderr.trim().slice(-2000);
    super({
      code: 'GIT_COMMAND_FAILED',
      message: `git ${options.args.join(' ')} failed in ${options.cwd}${options.exitCode === undefined ? '' : ` (exit code ${options.exitCode})`}${stderr === '' ? '' : `: ${stderr}`}`,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.args = options.args;
    this.cwd = options.cwd;
    this.exitCode = options.exitCode;
    this.stderr = stderr;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(GitCommandError);
}
