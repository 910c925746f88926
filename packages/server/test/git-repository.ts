/** Test helper: runs git in a repository the test made, as a fixed author (no global git config needed). */
import { execFileSync } from 'node:child_process';

/** Runs `git <args>` in `cwd` and returns its trimmed stdout; throws when git fails. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test User',
      GIT_AUTHOR_EMAIL: 'user@example.com',
      GIT_COMMITTER_NAME: 'Test User',
      GIT_COMMITTER_EMAIL: 'user@example.com',
    },
  }).trim();
}
