import { AttractorError, isErrorOf } from '@attractor/errors';

/** Options of {@link SimulationScriptError}. */
export interface SimulationScriptErrorOptions {
  /** The script file (or `<inline>`). */
  readonly path: string;
  /** What is wrong, e.g. `"classify"[1] must be an outcome word`. */
  readonly problem: string;
  readonly cause?: unknown;
}

/**
 * A simulation script (see `loadSimulationScript`) that cannot be read or does not have the shape
 * `{ "<node id>": ["<outcome>", ...] }`. The message names the file and the bad entry.
 */
export class SimulationScriptError extends AttractorError<'SIMULATION_SCRIPT_INVALID'> {
  override readonly name = 'SimulationScriptError';
  /** The script file. */
  readonly path: string;
  /** The problem without the file name. */
  readonly problem: string;

  constructor(options: SimulationScriptErrorOptions) {
    super({
      code: 'SIMULATION_SCRIPT_INVALID',
      message: `Simulation script ${options.path} is invalid: ${options.problem}. Expected a JSON object mapping node ids to lists of outcome words, e.g. {"classify": ["bug"], "test": ["fail", "success"]}.`,
      cause: options.cause,
    });
    this.path = options.path;
    this.problem = options.problem;
  }

  /** True for a `SimulationScriptError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(SimulationScriptError);
}
