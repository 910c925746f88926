import { AttractorError, isErrorOf } from '@attractor/errors';

/** Why a run directory cannot be resumed. */
export type ResumeErrorReason =
  /** There is no checkpoint (or manifest) in the directory. */
  | 'no_checkpoint'
  /** The checkpoint was written for a different graph (its sha256 differs). */
  | 'graph_mismatch'
  /** The run already ended in success; there is nothing to resume. */
  | 'already_completed'
  /** `from` or the checkpoint's next node is not a node of the graph. */
  | 'unknown_node'
  /** The run works in a workspace (its checkpoint records one) and no workspace provider was given. */
  | 'workspace_required';

/** Thrown by `resumePipeline` when the run directory cannot be resumed with the given graph. */
export class ResumeError extends AttractorError<'RESUME_REFUSED'> {
  override readonly name = 'ResumeError';
  readonly reason: ResumeErrorReason;
  readonly logsRoot: string;
  readonly retryable = false;

  constructor(options: { reason: ResumeErrorReason; logsRoot: string; message: string }) {
    super({ code: 'RESUME_REFUSED', message: options.message });
    this.reason = options.reason;
    this.logsRoot = options.logsRoot;
  }

  /** True for a `ResumeError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ResumeError);
}
