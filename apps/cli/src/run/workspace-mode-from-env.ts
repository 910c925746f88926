import { CliError } from '../errors/cli-error.js';

/**
 * `$ATTRACTOR_WORKSPACE`, the machine's default workspace mode (under the config's and the graph's).
 * @throws {CliError} when it names no mode.
 */
export function workspaceModeFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): 'git' | 'copy' | 'in-place' | 'auto' | undefined {
  const value = env.ATTRACTOR_WORKSPACE?.trim();
  if (value === undefined || value === '') return undefined;
  if (value === 'git' || value === 'copy' || value === 'in-place' || value === 'auto') return value;
  throw new CliError({
    code: 'CLI_USAGE',
    message: `ATTRACTOR_WORKSPACE is "${value}"; set it to git, copy, in-place or auto (README "Workspaces"), or unset it.`,
  });
}
