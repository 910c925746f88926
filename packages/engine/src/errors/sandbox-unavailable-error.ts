import { AttractorError, isErrorOf } from '@attractor/errors';

/** Why the sandbox cannot be used: its program is not installed, or it does not run here. */
export type SandboxUnavailableReason = 'missing' | 'failed';

/**
 * Thrown by `checkBubblewrap` when the sandbox a run asked for (`--sandbox bwrap`) cannot work on this machine: the
 * `bwrap` program is missing, or it fails to start a sandbox (user namespaces switched off, a container without the
 * privilege). The message names the program and the fix; the run does not start unconfined.
 */
export class SandboxUnavailableError extends AttractorError<'SANDBOX_UNAVAILABLE'> {
  override readonly name = 'SandboxUnavailableError';
  readonly reason: SandboxUnavailableReason;
  /** The `bwrap` program looked for. */
  readonly bwrapPath: string;
  readonly retryable = false;

  constructor(options: { reason: SandboxUnavailableReason; bwrapPath: string; detail: string }) {
    super({
      code: 'SANDBOX_UNAVAILABLE',
      message:
        options.reason === 'missing'
          ? `The sandbox needs Bubblewrap, but ${options.bwrapPath} is not installed (${options.detail}). Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), point ATTRACTOR_BWRAP at it, or run without the sandbox.`
          : `The sandbox cannot start: ${options.bwrapPath} failed (${options.detail}). Bubblewrap needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or root; fix that, or run without the sandbox.`,
    });
    this.reason = options.reason;
    this.bwrapPath = options.bwrapPath;
  }

  /** True for a `SandboxUnavailableError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(SandboxUnavailableError);
}
