/**
 * The inputs of `attractor run` (README "Typed data"): `--inputs-file` and `--input name=value`, checked against the
 * graph's `inputs` before the run directory is made.
 */
import { dirname } from 'node:path';
import {
  InputsInvalidError,
  inputsOfContext,
  type JsonValue,
  parseInputText,
  readInputSchema,
  validatePipelineInputs,
} from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { maxFileBytesFromEnv, readSourceFile } from '../read-source-file.js';

/** Options of {@link readRunInputs}. */
export interface ReadRunInputsOptions {
  readonly graph: Graph;
  /** The DOT file (absolute): a schema file in `inputs` is relative to its directory. */
  readonly pipelinePath: string;
  /** `--input name=value`, the texts by name. */
  readonly input?: Readonly<Record<string, string>>;
  /** `--inputs-file`, as given. */
  readonly inputsFile?: string;
  /** `--set key=value`, parsed: its `input.<name>` keys are inputs too (the engine reads them so), under the others. */
  readonly set?: Readonly<Record<string, JsonValue>>;
  readonly io: CliIo;
}

/**
 * Reads the run's inputs: the `input.<name>` keys of `--set`, then the `--inputs-file` object, then each `--input`
 * (read as its declared type: the text of a string input as written, others JSON-parsed), each overriding the one
 * before, and checks them against the graph's `inputs`.
 *
 * @throws {CliError} `CLI_INVALID_INPUT` (exit 2) naming each field, the expected type and the value given, or a
 *   `--inputs-file` that is not a JSON object; `CLI_FILE_NOT_FOUND` for a missing `--inputs-file`.
 */
export async function readRunInputs(options: ReadRunInputsOptions): Promise<Record<string, JsonValue>> {
  const { io } = options;
  const baseDirectory = dirname(options.pipelinePath);
  const values: Record<string, JsonValue> = { ...inputsOfContext(options.set ?? {}) };
  if (options.inputsFile !== undefined) {
    const maxBytes = maxFileBytesFromEnv(io.env);
    const text = await readSourceFile(options.inputsFile, {
      cwd: io.cwd,
      what: 'Inputs file',
      ...(maxBytes === undefined ? {} : { maxBytes }),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `--inputs-file ${options.inputsFile} is not valid JSON: ${(error as Error).message}. Write a JSON object of inputs, e.g. {"repo": "acme/api", "issue": 42}.`,
        cause: error,
      });
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `--inputs-file ${options.inputsFile} is not a JSON object of inputs: write e.g. {"repo": "acme/api", "issue": 42}.`,
      });
    }
    Object.assign(values, parsed);
  }
  try {
    if (options.input !== undefined) {
      const schema = await readInputSchema({ graph: options.graph, baseDirectory });
      for (const [name, text] of Object.entries(options.input))
        values[name] = parseInputText(schema, name, text);
    }
    return { ...(await validatePipelineInputs({ graph: options.graph, inputs: values, baseDirectory })) };
  } catch (error) {
    if (!InputsInvalidError.isInstance(error)) throw error;
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `${error.message}${error.problems.length === 0 ? '' : '\nPass inputs with --input name=value (repeatable) or --inputs-file inputs.json.'}`,
      cause: error,
    });
  }
}
