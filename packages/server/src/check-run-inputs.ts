/**
 * The inputs of `POST /pipelines` (README "Typed data"): checked against the graph's `inputs` before a run directory
 * is made or a run is queued.
 */
import {
  InputsInvalidError,
  inputsOfContext,
  type JsonValue,
  validatePipelineInputs,
} from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import { ApiError } from './errors/api-error.js';

/**
 * Checks `inputs` (and `input.<name>` keys of `context`) against the graph's `inputs` and returns them.
 *
 * @param options.baseDirectory where a relative input schema file is read from (the pipeline file's directory).
 * @throws {ApiError} `INVALID_INPUTS` (400) whose message names each field, the expected type and the value, with
 *   `problems` (`{ field, expected, value, message }`) in the error body.
 */
export async function checkRunInputs(options: {
  readonly graph: Graph;
  readonly inputs?: Readonly<Record<string, JsonValue>>;
  readonly context?: Readonly<Record<string, JsonValue>>;
  readonly baseDirectory?: string;
}): Promise<Readonly<Record<string, JsonValue>>> {
  try {
    return await validatePipelineInputs({
      graph: options.graph,
      inputs: { ...inputsOfContext(options.context ?? {}), ...options.inputs },
      ...(options.baseDirectory === undefined ? {} : { baseDirectory: options.baseDirectory }),
    });
  } catch (error) {
    if (!InputsInvalidError.isInstance(error)) throw error;
    throw new ApiError({
      status: 400,
      code: 'INVALID_INPUTS',
      message: `${error.message}${error.problems.length === 0 ? '' : '\nSend them as "inputs": {"<name>": <value>, ...} in the request body.'}`,
      details: { problems: error.problems },
      cause: error,
    });
  }
}
