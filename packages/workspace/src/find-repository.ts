/** Whether a directory is inside a git repository, and where that repository is. */
import type { GitRunner } from './git-runner.js';

/** A git repository a directory is inside. */
export interface FoundRepository {
  /** The top directory of the worktree the directory is in (real path). */
  readonly top: string;
  /** The repository's common git directory (absolute). */
  readonly commonDir: string;
  /** The index file of the worktree the directory is in (absolute). */
  readonly indexPath: string;
}

/**
 * The repository `git` runs in, or undefined when its directory is not inside one (or is inside a `.git`
 * directory, or git is missing).
 */
export async function findRepository(git: GitRunner): Promise<FoundRepository | undefined> {
  const answer = await git
    .text(
      [
        'rev-parse',
        '--path-format=absolute',
        '--is-inside-work-tree',
        '--show-toplevel',
        '--git-common-dir',
        '--git-path',
        'index',
      ],
      { okExitCodes: [0] },
    )
    .catch(() => undefined);
  const [inside, top, commonDir, indexPath] = answer?.split('\n') ?? [];
  if (inside !== 'true' || top === undefined || commonDir === undefined || indexPath === undefined)
    return undefined;
  return { top, commonDir, indexPath };
}
