/**
 * `inspect <run>` and `render --run <run>`: a run directory, or, when a store URL is set (`--store` /
 * `ATTRACTOR_STORE_URL`) and no such directory exists, a run id of the shared store.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { type RunDirectory, readForkStart, readRunDirectory } from '../inspect/read-run-directory.js';
import { openRunCatalog, storeUrlOf } from './shared-locations.js';

/**
 * Reads a run from its directory or from the shared store.
 * @throws {CliError} when neither has it (the message names both places), or the store is unreachable.
 */
export async function readRunAnywhere(
  run: string,
  options: { readonly io: CliIo; readonly store?: string },
): Promise<RunDirectory> {
  const { io } = options;
  const storeUrl = storeUrlOf(options.store, io);
  const isDirectory = await stat(resolve(io.cwd, run)).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (storeUrl === undefined || isDirectory || run.includes('/'))
    return readRunDirectory(run, { cwd: io.cwd });
  const catalog = await openRunCatalog(storeUrl, io);
  try {
    const store = catalog.open(run);
    const manifest = await store.readManifest();
    if (manifest === undefined) {
      throw new CliError({
        code: 'CLI_FILE_NOT_FOUND',
        message: `No run "${run}" in the run store ${catalog.location} (--store / ATTRACTOR_STORE_URL), and no run directory of that name. List the store's runs with \`attractor runs\`.`,
      });
    }
    const checkpoint = await store.readCheckpoint();
    const events = await store.readEvents();
    const forkStart = await readForkStart(store, manifest);
    await store.close();
    return {
      logsRoot: `${catalog.location}#${run}`,
      manifest,
      ...(checkpoint === undefined ? {} : { checkpoint }),
      events,
      ...(forkStart === undefined ? {} : { forkStart }),
    };
  } finally {
    await catalog.close();
  }
}
