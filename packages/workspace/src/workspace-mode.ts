/** The workspace modes a run may ask for (README "Workspaces"). */

/**
 * `git`: a worktree of the repository the working directory is in; `copy`: a copy the run owns; `in-place`: the
 * working directory itself; `auto`: `git` inside a git repository, else `in-place`.
 */
export type WorkspaceMode = 'git' | 'copy' | 'in-place' | 'auto';

/** The modes, as `--workspace`, the graph's `workspace` attribute and the config file spell them. */
export const WORKSPACE_MODES: readonly WorkspaceMode[] = ['git', 'copy', 'in-place', 'auto'];

/** The mode `text` names (surrounding blanks allowed), or undefined when it names none. */
export function parseWorkspaceMode(text: string): WorkspaceMode | undefined {
  const trimmed = text.trim();
  return (WORKSPACE_MODES as readonly string[]).includes(trimmed) ? (trimmed as WorkspaceMode) : undefined;
}
