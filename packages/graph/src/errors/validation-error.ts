import type { Diagnostic } from '../lint/diagnostic.js';

const MARKER = Symbol.for('attractor.error.ValidationError');

/**
 * Thrown by `validateOrThrow` when a graph has error-severity diagnostics (spec §7.3). The message
 * lists every error; `diagnostics` holds all findings (errors, warnings and infos).
 */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** Stable error code. */
  readonly code = 'VALIDATION_FAILED';
  /** Every diagnostic of the validation run, errors first as found. */
  readonly diagnostics: readonly Diagnostic[];
  readonly [MARKER] = true;

  constructor(diagnostics: readonly Diagnostic[], options?: { cause?: unknown }) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const lines = errors.map((diagnostic) => {
      const where = diagnostic.span ? `${diagnostic.span.start.line}:${diagnostic.span.start.column}: ` : '';
      return `  ${where}[${diagnostic.rule}] ${diagnostic.message}`;
    });
    super(
      `Pipeline validation failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
      options,
    );
    this.diagnostics = diagnostics;
  }

  /** True for a `ValidationError` from any copy of this package (checks a `Symbol.for` marker). */
  static isInstance(error: unknown): error is ValidationError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}
