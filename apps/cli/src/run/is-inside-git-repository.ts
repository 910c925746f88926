/**
 * Whether a run's working directory is inside a git repository: the `auto` workspace mode (README "Workspaces") is
 * `git` there and `in-place` elsewhere.
 */
import { execFile } from 'node:child_process';

/**
 * Resolves with true when `git rev-parse --is-inside-work-tree` in `directory` answers `true`; false outside a
 * repository, inside a `.git` directory, or when git is missing. Never rejects.
 */
export function isInsideGitRepository(directory: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['rev-parse', '--is-inside-work-tree'], { cwd: directory }, (error, stdout) => {
      resolve(error === null && stdout.trim() === 'true');
    });
  });
}
