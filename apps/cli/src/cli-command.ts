/**
 * How to spell the `attractor` command in a hint the user may paste (`attractor resume <dir>`): through the package
 * manager that started this process when it was `pnpm exec` or `npm exec`/`npx`, so the hint works in a project that
 * installed the CLI locally.
 */

/**
 * The command prefix for printed hints: `pnpm exec attractor` when started by `pnpm exec` (pnpm sets
 * `npm_command=exec` and a `npm_config_user_agent` starting with `pnpm/`), `npx attractor` when started by
 * `npm exec` or `npx` (`npm_command=exec`, user agent `npm/...`), otherwise `attractor`.
 *
 * @param env - the process environment (`CliIo.env`).
 * @example
 * cliCommand({ npm_command: 'exec', npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64' });
 * // 'pnpm exec attractor'
 */
export function cliCommand(env: Readonly<Record<string, string | undefined>>): string {
  if (env.npm_command !== 'exec') return 'attractor';
  const agent = env.npm_config_user_agent ?? '';
  if (agent.startsWith('pnpm/')) return 'pnpm exec attractor';
  if (agent.startsWith('npm/')) return 'npx attractor';
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
