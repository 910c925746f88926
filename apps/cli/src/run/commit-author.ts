import type { GitIdentity } from '@attractor/workspace';
import { CliError } from '../errors/cli-error.js';

/**
 * The identity of a run's commits from `--commit-author` (or the config's `defaults.commitAuthor`), `Name <email>`.
 * @param where - the setting it came from, for the message.
 * @throws {CliError} `CLI_USAGE` when it is not of that form.
 */
export async function commitIdentityOf(
  author: string | undefined,
  where: string,
): Promise<GitIdentity | undefined> {
  if (author === undefined) return undefined;
  const { parseGitIdentity } = await import('@attractor/workspace');
  const identity = parseGitIdentity(author);
  if (identity === undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${where} is "${author}"; write it as "Name <email>", e.g. "Build Bot <bot@example.com>".`,
    });
  }
  return identity;
}
