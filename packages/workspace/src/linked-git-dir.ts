/** Where a linked worktree keeps its own git files (HEAD, index, MERGE_HEAD): `<repository>/worktrees/<name>`. */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The git directory of the linked worktree whose top is `worktree`, read from its `.git` file (`gitdir: <path>`)
 * without starting git; undefined when `worktree` is not a linked worktree (its `.git` is a directory, or missing).
 */
export function linkedGitDir(worktree: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(worktree, '.git'), 'utf8');
  } catch {
    return undefined;
  }
  const path = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (path === undefined) return undefined;
  return isAbsolute(path) ? path : resolve(worktree, path);
}
