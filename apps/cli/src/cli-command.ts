/**
 * How to spell the `attractor` command in a hint the user may paste (`attractor resume <dir>`): through the package
 * manager that started this process when it was `pnpm exec` or `npm exec`/`npx`, so the hint works in a project that
 * installed the CLI locally.
 */
import { basename } from 'node:path';

/**
 * The command prefix for printed hints: `pnpm exec attractor` when started by `pnpm exec` (pnpm sets
 * `npm_command=exec` and a `npm_config_user_agent` starting with `pnpm/`), `npx attractor` when started by
 * `npm exec` or `npx` (`npm_command=exec`, user agent `npm/...`), `node <path>/attractor.js` when the CLI's script
 * was started by path (`node /path/to/attractor/apps/cli/bin/attractor.js run ...`: `attractor` need not be on the
 * PATH then), otherwise `attractor`.
 *
 * @param env - the process environment (`CliIo.env`).
 * @param script - the script the process runs (`process.argv[1]`, the default): a linked `attractor` command, or
 *   the CLI's `attractor.js` started by path.
 * @example
 * cliCommand({ npm_command: 'exec', npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64' });
 * // 'pnpm exec attractor'
 * cliCommand({}, '/opt/attractor/apps/cli/bin/attractor.js'); // 'node /opt/attractor/apps/cli/bin/attractor.js'
 */
export function cliCommand(
  env: Readonly<Record<string, string | undefined>>,
  script: string | undefined = process.argv[1],
): string {
  if (env.npm_command === 'exec') {
    const agent = env.npm_config_user_agent ?? '';
    if (agent.startsWith('pnpm/')) return 'pnpm exec attractor';
    if (agent.startsWith('npm/')) return 'npx attractor';
  }
  if (script !== undefined && basename(script) === 'attractor.js') return `node ${quoteArgument(script)}`;
  return 'attractor';
}

/**
 * Quotes a shell argument for a printed command when it needs it (POSIX shell single quotes).
 *
 * @example
 * quoteArgument('runs/a b'); // "'runs/a b'"
 */
export function quoteArgument(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
