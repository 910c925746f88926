import { AttractorError, isErrorOf } from '@attractor/errors';
import type { JsonSchemaProblem } from '../json-schema-validator.js';

/**
 * Thrown (as a rejection of the run's result) by `startPipeline` / `runPipeline`, and by `validatePipelineInputs`,
 * when the run's inputs do not match the graph's `inputs` (README "Typed data"), or the graph's input schema file
 * cannot be read. No stage has run and no run directory was written. The message names every field, what it expects
 * and the value given.
 */
export class InputsInvalidError extends AttractorError<'INPUTS_INVALID'> {
  override readonly name = 'InputsInvalidError';
  /** Each mismatch; empty when the schema file itself is the problem. */
  readonly problems: readonly JsonSchemaProblem[];
  readonly retryable = false;

  constructor(options: { message: string; problems?: readonly JsonSchemaProblem[]; cause?: unknown }) {
    super({
      code: 'INPUTS_INVALID',
      message: options.message,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.problems = options.problems ?? [];
  }

  /** True for an `InputsInvalidError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(InputsInvalidError);
}
