import { AttractorError, isErrorOf } from '@attractor/errors';

/** What kind of name was refused. */
export type StoreNameKind = 'stage path' | 'stage file name' | 'artifact id' | 'child path' | 'run id';

/**
 * Thrown by a `RunStore` for a stage path, stage file name, artifact id or child path it cannot store (empty, absolute,
 * with a `\` or a `.`/`..` segment, or for ids characters other than letters, digits, `.`, `_`, `-`), and by a
 * `RunCatalog` for such a run id.
 */
export class InvalidStoreNameError extends AttractorError<'INVALID_STORE_NAME'> {
  override readonly name = 'InvalidStoreNameError';
  readonly kind: StoreNameKind;
  readonly value: string;
  readonly retryable = false;

  constructor(options: { kind: StoreNameKind; value: string }) {
    super({
      code: 'INVALID_STORE_NAME',
      message:
        options.kind === 'artifact id' || options.kind === 'run id'
          ? `${options.kind === 'run id' ? 'Run' : 'Artifact'} id "${options.value}" is invalid: use letters, digits, ".", "_" and "-" only.`
          : `The ${options.kind} "${options.value}" is invalid: use a relative, "/"-separated name without "." or ".." segments (e.g. "logs/out.txt").`,
    });
    this.kind = options.kind;
    this.value = options.value;
  }

  /** True for an error of this class from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(InvalidStoreNameError);
}
