/**
 * What an agent may do without asking, since nobody is there to answer its prompts
 * (docs/architecture.md "Agent-CLI backends"). The default lets it edit files; anything broader is an
 * explicit opt-in.
 */

/**
 * - `edit` (default): the agent runs non-interactively and may read and edit files in the working directory.
 *   Claude Code: `permissionMode: 'acceptEdits'` (file edits are accepted; a shell command or web fetch that
 *   is not pre-approved by the user's own Claude Code settings is refused). Codex: `--sandbox workspace-write`
 *   with approvals `never` (commands run in Codex's sandbox: writes only inside the working directory and temp
 *   dirs, no network). Gemini CLI: `--approval-mode auto_edit` (file edits are accepted; shell commands are
 *   refused in non-interactive mode).
 * - `full`: everything, without a sandbox. Claude Code: `bypassPermissions` (same as
 *   `--dangerously-skip-permissions`); Codex: `--dangerously-bypass-approvals-and-sandbox`; Gemini CLI:
 *   `--approval-mode yolo`. The agent may run any command with your user's rights, anywhere, with network. Use it
 *   in a container or a throw-away checkout.
 */
export type AgentPermissions = 'edit' | 'full';
