const MARKER = Symbol.for('attractor.error.ResumeError');

/** Why a run directory cannot be resumed. */
export type ResumeErrorReason =
  /** There is no checkpoint (or manifest) in the directory. */
  | 'no_checkpoint'
  /** The checkpoint was written for a different graph (its sha256 differs). */
  | 'graph_mismatch'
  /** The run already ended in success; there is nothing to resume. */
  | 'already_completed'
  /** `from` or the checkpoint's next node is not a node of the graph. */
  | 'unknown_node';

/** Thrown by `resumePipeline` when the run directory cannot be resumed with the given graph. */
export class ResumeError extends Error {
  override readonly name = 'ResumeError';
  readonly code = 'RESUME_REFUSED';
  readonly reason: ResumeErrorReason;
  readonly logsRoot: string;
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { reason: ResumeErrorReason; logsRoot: string; message: string }) {
    super(options.message);
    this.reason = options.reason;
    this.logsRoot = options.logsRoot;
  }

  /** True for a `ResumeError` from any copy of this package. */
  static isInstance(error: unknown): error is ResumeError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
