import type { CliIo } from '../cli-io.js';
import { executeRun } from '../run/execute-run.js';
import type { RunCliOptions } from '../run/run-cli-options.js';

/**
 * `attractor run <file.dot>`: parse, transform, lint (refuse on errors, print warnings), run. Resolves with the
 * exit code (0 success, 1 failed, 130 interrupted). See {@link executeRun}.
 */
export async function runCommand(options: {
  readonly file: string;
  readonly options: RunCliOptions;
  readonly io: CliIo;
  /** Where the run's directory goes when `--logs-dir` is not given (`--store <dir>`): `<dir>/<run id>`. */
  readonly runsDirectory?: string;
}): Promise<number> {
  const { createRunServices } = await import('../run/create-run-services.js');
  return executeRun({
    mode: { kind: 'run', file: options.file },
    options: options.options,
    io: options.io,
    createServices: createRunServices,
    ...(options.runsDirectory === undefined ? {} : { runsDirectory: options.runsDirectory }),
  });
}

/**
 * `attractor resume <run-dir>`: continue an interrupted or failed run from its checkpoint, with the backend the
 * run was started with unless backend flags are given. See {@link executeRun}.
 */
export async function resumeCommand(options: {
  readonly runDir: string;
  readonly options: RunCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { createRunServices } = await import('../run/create-run-services.js');
  return executeRun({
    mode: { kind: 'resume', runDir: options.runDir },
    options: options.options,
    io: options.io,
    createServices: createRunServices,
  });
}

/**
 * `attractor fork <run-dir> --at <node>[@visit]`: a new run from the checkpoint after that stage of the run, with
 * the run's DOT file or `--graph` (an edited graph re-routes that stage's outcome). The source run is only read.
 * See {@link executeRun}.
 */
export async function forkCommand(options: {
  readonly runDir: string;
  readonly at: string;
  readonly options: RunCliOptions;
  readonly io: CliIo;
  /** Where the fork's directory goes when `--logs-dir` is not given (`--store <dir>`): `<dir>/<run id>`. */
  readonly runsDirectory?: string;
}): Promise<number> {
  const { createRunServices } = await import('../run/create-run-services.js');
  return executeRun({
    mode: { kind: 'fork', runDir: options.runDir, at: options.at },
    options: options.options,
    io: options.io,
    createServices: createRunServices,
    ...(options.runsDirectory === undefined ? {} : { runsDirectory: options.runsDirectory }),
  });
}
