/**
 * File I/O inside a stage directory (spec §5.6, Appendix C): `prompt.md`, `response.md`, `status.json` and the
 * `steer/` directory a manager loop writes and a codergen stage reads (spec §4.11).
 *
 * The per-stage files are written and read with synchronous calls behind async signatures, like the engine's run
 * store: they are small, and a synchronous call is several times cheaper than a trip through the thread pool (it
 * counts with 200 parallel tool branches). The engine has created the stage directory before a handler runs, so
 * the common path is one call per file; a missing `status.json` is checked without throwing.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Outcome } from '@attractor/engine';
import { readTextFileSync } from '@attractor/engine';
import { writeFileAtomicSync } from '@attractor/engine/internal';
import { parseStatusFile } from './status-file-schema.js';

/** The name of the steering directory inside a stage directory. */
export const STEER_DIRECTORY = 'steer';

/**
 * Writes a text file in the stage directory (creating the directory when needed), atomically: a temp file renamed
 * into place, so a full disk or a crash never leaves it empty or torn.
 */
export async function writeStageFile(stageDir: string, name: string, text: string): Promise<void> {
  const path = join(stageDir, name);
  try {
    writeFileAtomicSync(path, text, { fsync: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(stageDir, { recursive: true });
    writeFileAtomicSync(path, text, { fsync: false });
  }
}

/** Removes a `status.json` left by an earlier attempt of the same visit, so only a fresh one can override. */
export async function removeStatusFile(stageDir: string): Promise<void> {
  const path = join(stageDir, 'status.json');
  if (existsSync(path)) rmSync(path, { force: true });
}

/**
 * Reads a `status.json` that a command or agent wrote during the stage (spec Appendix C).
 * Returns undefined when there is none, the outcome it describes, or a FAIL outcome naming the problem when the
 * file is not valid JSON or does not follow the contract.
 */
export async function readWrittenStatus(stageDir: string): Promise<Outcome | undefined> {
  const path = join(stageDir, 'status.json');
  if (!existsSync(path)) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseStatusFile(text, path);
}

/**
 * Takes the steering messages in `{stageDir}/steer/` (oldest first, by file name) and deletes them
 * (the `takeSteering` of a codergen request). Returns `[]` when there are none.
 */
export async function takeSteeringMessages(stageDir: string): Promise<string[]> {
  const directory = join(stageDir, STEER_DIRECTORY);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const messages: string[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.md')).sort(compareNatural)) {
    const path = join(directory, name);
    messages.push(await readFile(path, 'utf8'));
    await rm(path, { force: true });
  }
  return messages;
}

/** Writes steering message number `sequence` to `{stageDir}/steer/<sequence>.md` and returns its path. */
export async function writeSteeringMessage(
  stageDir: string,
  sequence: number,
  message: string,
): Promise<string> {
  const directory = join(stageDir, STEER_DIRECTORY);
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${String(sequence).padStart(4, '0')}.md`);
  await writeFile(path, message);
  return path;
}

function compareNatural(left: string, right: string): number {
  return left.localeCompare(right, 'en', { numeric: true });
}

/**
 * The full output of a stage, for whoever combines branches (DESIGN.md "Parallel results"): its `response.md`
 * (an LLM stage), else its `stdout.txt` (a tool stage); undefined when it wrote neither. Read with the 10 MB
 * limit of `readTextFileSync`.
 */
export function readStageOutput(stageDir: string): string | undefined {
  for (const name of ['response.md', 'stdout.txt']) {
    const path = join(stageDir, name);
    if (!existsSync(path)) continue;
    try {
      return readTextFileSync(path, { what: 'Stage output' });
    } catch {
      // Too large or not a file: the branch's short `last_response` still stands.
      return undefined;
    }
  }
  return undefined;
}
