import { AttractorError, isErrorOf } from '@attractor/errors';

/** Thrown by `ArtifactStore.retrieve` for an id that was never stored (or was removed). */
export class ArtifactNotFoundError extends AttractorError<'ARTIFACT_NOT_FOUND'> {
  override readonly name = 'ArtifactNotFoundError';
  readonly artifactId: string;
  readonly retryable = false;

  constructor(options: { artifactId: string; known: readonly string[] }) {
    super({
      code: 'ARTIFACT_NOT_FOUND',
      message: `Artifact "${options.artifactId}" not found. Stored artifacts: ${options.known.length === 0 ? '(none)' : options.known.join(', ')}.`,
    });
    this.artifactId = options.artifactId;
  }

  /** True for a `ArtifactNotFoundError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ArtifactNotFoundError);
}
