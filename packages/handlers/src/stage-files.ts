/**
 * The files of a stage (spec §5.6, Appendix C) through the run store (`runtime.stage`,
 * docs/architecture.md "Run directory"): `prompt.md`, `response.md`, `status.json`, the output of branch
 * stages, and the `steer/` messages a manager loop writes and a codergen stage takes (spec §4.11). Nothing
 * here assumes a file system: the same code works with the file store, the in-memory store and a database
 * store.
 */
import { join } from 'node:path';
import type { Outcome, RunStore, StageWorkspace } from '@attractor/engine';
import { parseStatusFile } from './status-file-schema.js';

/** The name of the steering directory inside a stage. */
export const STEER_DIRECTORY = 'steer';

/** The largest branch output {@link readStageOutput} reads, in bytes (10 MB, like `readTextFileSync`). */
const STAGE_OUTPUT_MAX_BYTES = 10 * 1024 * 1024;

/** Removes a `status.json` left by an earlier attempt of the same visit, so only a fresh one can override. */
export async function removeStatusFile(stage: StageWorkspace): Promise<void> {
  await stage.removeFile('status.json');
}

/**
 * Reads a `status.json` that a command or agent wrote during the stage (spec Appendix C).
 * Returns undefined when there is none, the outcome it describes, or a FAIL outcome naming the problem when the
 * file is not valid JSON or does not follow the contract.
 */
export async function readWrittenStatus(stage: StageWorkspace): Promise<Outcome | undefined> {
  const text = await stage.readText('status.json');
  if (text === undefined) return undefined;
  return parseStatusFile(text, join(await stage.localDirectory(), 'status.json'));
}

/**
 * Takes the steering messages in the stage's `steer/` (oldest first, by file name) and removes them
 * (the `takeSteering` of a codergen request). Returns `[]` when there are none.
 */
export async function takeSteeringMessages(stage: StageWorkspace): Promise<string[]> {
  const names = (await stage.listFiles())
    .map((file) => file.name)
    .filter((name) => name.startsWith(`${STEER_DIRECTORY}/`) && name.endsWith('.md'))
    .filter((name) => !name.slice(STEER_DIRECTORY.length + 1).includes('/'))
    .sort(compareNatural);
  const messages: string[] = [];
  for (const name of names) {
    const text = await stage.readText(name);
    if (text !== undefined) messages.push(text);
    await stage.removeFile(name);
  }
  return messages;
}

/**
 * Writes steering message number `sequence` to `steer/<sequence>.md` of stage `stagePath` in `store` (a child run's
 * store, `ChildRunHandle.store`) and returns its name relative to the run (`{stagePath}/steer/0001.md`).
 */
export async function writeSteeringMessage(
  store: RunStore,
  stagePath: string,
  sequence: number,
  message: string,
): Promise<string> {
  const name = `${STEER_DIRECTORY}/${String(sequence).padStart(4, '0')}.md`;
  await store.writeStageFile(stagePath, name, message);
  return `${stagePath}/${name}`;
}

function compareNatural(left: string, right: string): number {
  return left.localeCompare(right, 'en', { numeric: true });
}

/** The file a sub-pipeline stage writes its child's output to (`RunResult.output`, as JSON): see `readStageOutput`. */
export const SUBGRAPH_OUTPUT_FILE = 'output.json';

/**
 * The full output of a stage nested in `stage` at `path` (a branch stage, `branches/{id}/{node}`), for whoever
 * combines branches (docs/architecture.md "Parallel results"): its `response.md` (an LLM stage), else its
 * `stdout.txt` (a tool stage), else its {@link SUBGRAPH_OUTPUT_FILE} (a sub-pipeline stage whose child declares
 * `outputs`); undefined when it wrote none or the file is larger than 10 MB.
 */
export async function readStageOutput(stage: StageWorkspace, path: string): Promise<string | undefined> {
  for (const name of ['response.md', 'stdout.txt', SUBGRAPH_OUTPUT_FILE]) {
    const bytes = await stage.readFile(`${path}/${name}`);
    if (bytes === undefined) continue;
    // Too large: the branch's short `last_response` still stands.
    if (bytes.byteLength > STAGE_OUTPUT_MAX_BYTES) return undefined;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }
  return undefined;
}
