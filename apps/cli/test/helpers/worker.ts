/**
 * Starts a real `attractor worker` process for the shared-store end-to-end tests (issue 18): it takes runs from the
 * queue at `ATTRACTOR_QUEUE_URL` and writes them to the store at `ATTRACTOR_STORE_URL` (both in `env`).
 */
import { join } from 'node:path';
import { attractor } from './cli.js';

/**
 * `attractor worker` in `dir`, with per-run working directories under `{dir}/work`, a 10 s heartbeat and a 1 s
 * supervision period (so a killed worker's runs are taken over quickly). Resolves (never rejects) when it exits;
 * end it with `kill('SIGTERM')`.
 */
export function startWorker(options: {
  readonly dir: string;
  readonly env: Readonly<Record<string, string>>;
}): ReturnType<typeof attractor> {
  return attractor(
    [
      'worker',
      '--workdir-root',
      join(options.dir, 'work'),
      '--heartbeat-seconds',
      '10',
      '--supervise-seconds',
      '1',
    ],
    { cwd: options.dir, env: options.env },
  );
}
