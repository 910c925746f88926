const MARKER = Symbol.for('attractor.error.ArtifactNotFoundError');

/** Thrown by `ArtifactStore.retrieve` for an id that was never stored (or was removed). */
export class ArtifactNotFoundError extends Error {
  override readonly name = 'ArtifactNotFoundError';
  readonly code = 'ARTIFACT_NOT_FOUND';
  readonly artifactId: string;
  readonly retryable = false;
  readonly [MARKER] = true;

  constructor(options: { artifactId: string; known: readonly string[] }) {
    super(
      `Artifact "${options.artifactId}" not found. Stored artifacts: ${options.known.length === 0 ? '(none)' : options.known.join(', ')}.`,
    );
    this.artifactId = options.artifactId;
  }

  /** True for an `ArtifactNotFoundError` from any copy of this package. */
  static isInstance(error: unknown): error is ArtifactNotFoundError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
