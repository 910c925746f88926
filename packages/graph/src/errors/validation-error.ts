import { AttractorError, isErrorOf } from '@attractor/errors';
import type { Diagnostic } from '../lint/diagnostic.js';

/**
 * Thrown by `validateOrThrow` when a graph has error-severity diagnostics (spec §7.3). The message
 * lists every error; `diagnostics` holds all findings (errors, warnings and infos).
 */
export class ValidationError extends AttractorError<'VALIDATION_FAILED'> {
  override readonly name = 'ValidationError';
  /** Every diagnostic of the validation run, errors first as found. */
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[], options?: { cause?: unknown }) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const lines = errors.map((diagnostic) => {
      const where = diagnostic.span ? `${diagnostic.span.start.line}:${diagnostic.span.start.column}: ` : '';
      return `  ${where}[${diagnostic.rule}] ${diagnostic.message}`;
    });
    super({
      code: 'VALIDATION_FAILED',
      message: `Pipeline validation failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
      cause: options?.cause,
    });
    this.diagnostics = diagnostics;
  }

  /** True for a `ValidationError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(ValidationError);
}
