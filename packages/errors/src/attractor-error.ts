/**
 * The base of every Attractor error class (CONTRIBUTING.md "Errors"): the `name`, the stable `code`, `cause`,
 * and the marker that `isInstance` checks instead of `instanceof`, which fails when two copies of a package
 * are installed.
 */

/** The marker every Attractor error carries, whatever its class. */
const ANY_ATTRACTOR_ERROR = Symbol.for('attractor.error');

/** The marker of one error class, by its name: `Symbol.for('attractor.error.<Name>')`. */
function markerOf(name: string): symbol {
  return Symbol.for(`attractor.error.${name}`);
}

/** What {@link AttractorError}'s constructor takes. */
export interface AttractorErrorOptions<TCode extends string> {
  /** The stable SCREAMING_SNAKE code, e.g. `HANDLER_NOT_FOUND`. */
  readonly code: TCode;
  /** What happened, where, and what to do. */
  readonly message: string;
  /** The error this one wraps, when there is one. */
  readonly cause?: unknown;
}

/**
 * The base class of the errors of every `@attractor/*` package. A subclass passes its `code` and message to
 * `super`, keeps its structured fields, and gets its `isInstance` from {@link isErrorOf}; its `name` is its class
 * name, and the base sets the marker `isInstance` checks.
 *
 * @example
 * export class DeployFailedError extends AttractorError<'DEPLOY_FAILED'> {
 *   override readonly name = 'DeployFailedError';
 *   constructor(region: string) {
 *     super({ code: 'DEPLOY_FAILED', message: `Deploying to ${region} failed; check the credentials.` });
 *   }
 *   static override readonly isInstance = isErrorOf(DeployFailedError);
 * }
 * if (DeployFailedError.isInstance(error)) console.log(error.code);
 */
export abstract class AttractorError<TCode extends string = string> extends Error {
  /** The stable SCREAMING_SNAKE code of the error. */
  readonly code: TCode;

  constructor(options: AttractorErrorOptions<TCode>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    Object.defineProperty(this, ANY_ATTRACTOR_ERROR, { value: true });
    Object.defineProperty(this, markerOf(new.target.name), { value: true });
  }

  /**
   * True for any Attractor error, from any copy of any `@attractor/*` package. Each subclass has its own
   * `isInstance`, true for its errors only: `static override readonly isInstance = isErrorOf(MyError)`. A plain
   * function: `errors.filter(DotSyntaxError.isInstance)` works.
   */
  static readonly isInstance: (error: unknown) => error is AttractorError = (
    error,
  ): error is AttractorError => hasMarker(error, ANY_ATTRACTOR_ERROR);
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/**
 * The `isInstance` of an {@link AttractorError} subclass: true for an error of that class made by any copy of its
 * package (it checks the class's `Symbol.for('attractor.error.<Name>')` marker, never `instanceof`).
 *
 * @example
 * export class DeployFailedError extends AttractorError<'DEPLOY_FAILED'> {
 *   static override readonly isInstance = isErrorOf(DeployFailedError);
 * }
 */
export function isErrorOf<TError extends AttractorError>(
  errorClass: abstract new (...args: never[]) => TError,
): (error: unknown) => error is TError {
  const marker = markerOf(errorClass.name);
  return (error): error is TError => hasMarker(error, marker);
}
