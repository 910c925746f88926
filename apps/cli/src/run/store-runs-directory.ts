/**
 * `--store` on a run that is executed here (`run`, `resume`, `fork` without `--queue`): a store that is a directory is
 * a runs directory, so the run's directory goes into it (`<store>/<run id>`, what workers write there too), and
 * `runs`, `inspect <run id>`, `cancel` and `purge` with the same `--store` find it. A PostgreSQL store is written by
 * workers only: such a run is refused, with what to do instead, rather than run without the store it names.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';

/**
 * The runs directory `--store` names for a run executed here, or undefined without `--store` (`ATTRACTOR_STORE_URL`
 * does not move local runs: it names the store of `runs`, `inspect` and workers).
 * @param command - `run`, `resume` or `fork`, for the message.
 * @throws {CliError} `CLI_USAGE` for a PostgreSQL URL (or another scheme), or `--store` beside `--logs-dir`.
 */
export function storeRunsDirectory(options: {
  readonly store: string | undefined;
  readonly logsDir?: string;
  readonly io: CliIo;
  readonly command: 'run' | 'resume' | 'fork';
}): string | undefined {
  const store = options.store?.trim();
  if (store === undefined || store === '') return undefined;
  if (/^postgres(ql)?:\/\//.test(store)) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `--store postgres://… holds runs that workers execute, and \`attractor ${options.command}\` without --queue runs here, writing a run directory. Add --queue <url> (or set ATTRACTOR_QUEUE_URL and pass --queue) to have a worker run it and record it in that store, or leave --store out to run it here${options.command === 'resume' ? '' : ' (its run directory goes under --logs-dir, default ./.attractor/runs)'}.`,
    });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(store) && !store.startsWith('file://')) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `The run store URL (--store) must be postgres://…, file://… or a directory, not "${store.replace(/\/\/[^@/]*@/, '//***@')}".`,
    });
  }
  if (options.logsDir !== undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message:
        '--store <dir> and --logs-dir both say where the run directory goes: keep --store (the run goes to <dir>/<run id>) or --logs-dir.',
    });
  }
  const directory = store.startsWith('file://') ? fileURLToPath(store) : store;
  return isAbsolute(directory) ? directory : resolve(options.io.cwd, directory);
}
