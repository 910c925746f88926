const MARKER = Symbol.for('attractor.error.SimulationScriptError');

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
export class SimulationScriptError extends Error {
  override readonly name = 'SimulationScriptError';
  /** Stable error code. */
  readonly code = 'SIMULATION_SCRIPT_INVALID';
  /** The script file. */
  readonly path: string;
  /** The problem without the file name. */
  readonly problem: string;
  readonly [MARKER] = true;

  constructor(options: SimulationScriptErrorOptions) {
    super(
      `Simulation script ${options.path} is invalid: ${options.problem}. Expected a JSON object mapping node ids to lists of outcome words, e.g. {"classify": ["bug"], "test": ["fail", "success"]}.`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.path = options.path;
    this.problem = options.problem;
  }

  /** Whether `error` is a SimulationScriptError (across package copies). */
  static isInstance(error: unknown): error is SimulationScriptError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
