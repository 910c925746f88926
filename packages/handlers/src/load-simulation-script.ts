/**
 * Reads a simulation script file (the CLI's `--simulate-script`).
 */
import { FileRefusedError, readTextFileSync } from '@attractor/engine';
import { SimulationScriptError } from './errors/simulation-script-error.js';
import {
  type ParseSimulationScriptOptions,
  parseSimulationScript,
  type SimulationScript,
} from './simulation-script.js';

/**
 * Reads and validates a simulation script file: a JSON object mapping node ids to lists of outcome words.
 *
 * @param path - the JSON file.
 * @param options - the pipeline's custom outcome words (`outcomes`), for the check of the step words (see
 *   `parseSimulationScript`).
 * @returns the script, ready for `createSimulationBackend({ script })`.
 * @throws {SimulationScriptError} when the file is missing, is not JSON, or has a bad entry; the message names the
 *   file and the entry (`"classify"[0] must be ...`), or a step word that is a typo of an outcome word (`"fial"`).
 * @example
 * const script = await loadSimulationScript('examples/pipelines/triage-routing.simulate.json');
 * const backend = createSimulationBackend({ script });
 */
export async function loadSimulationScript(
  path: string,
  options: ParseSimulationScriptOptions = {},
): Promise<SimulationScript> {
  let text: string;
  try {
    text = readTextFileSync(path, { what: 'The simulation script' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SimulationScriptError({
      path,
      problem: FileRefusedError.isInstance(error)
        ? error.message
        : code === 'ENOENT'
          ? 'the file does not exist'
          : `the file cannot be read (${code ?? String(error)})`,
      cause: error,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new SimulationScriptError({
      path,
      problem: `it is not valid JSON${jsonErrorPosition(error)}`,
      cause: error,
    });
  }
  return parseSimulationScript(data, path, { outcomes: options.outcomes ?? [] });
}

/**
 * Where JSON.parse stopped, as ` (at line 3 column 7)`, or `''`. Never its message's excerpt of the text (V8 quotes
 * the start of the file: `"root:x:0:0"... is not valid JSON`), since the file may be anyone's.
 */
function jsonErrorPosition(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn !== null) return ` (at line ${lineColumn[1]} column ${lineColumn[2]})`;
  const position = /at position (\d+)/.exec(message);
  return position === null ? '' : ` (at character ${position[1]})`;
}
