/**
 * The stage's `response.md` (spec §4.5, §11.13): the agent's final reply, written by the backend so the artifact
 * exists whether the handler receives a string or an Outcome.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** File the final reply is written to in the stage directory. */
export const RESPONSE_FILE = 'response.md';

/** Writes `{stageDir}/response.md` (UTF-8), replacing an earlier attempt's. */
export async function writeResponseFile(stageDir: string, text: string): Promise<void> {
  await writeFile(join(stageDir, RESPONSE_FILE), text, 'utf8');
}
