/**
 * Options every agent-CLI backend takes.
 */
import type { Clock } from '@attractor/engine';
import type { AgentPermissions } from './agent-permissions.js';

/** Options shared by {@link createClaudeCodeBackend}, {@link createCodexBackend} and {@link createGeminiCliBackend}. */
export interface AgentCliBackendOptions {
  /**
   * The agent's whole environment (nothing else is inherited; library code never reads `process.env`). The agent
   * needs `PATH` and `HOME` (where its own login lives) and any credentials it uses. The CLI passes its own
   * environment. The backend adds `ATTRACTOR_STAGE_DIR`, `ATTRACTOR_NODE_ID` and `ATTRACTOR_WORKDIR`.
   * Default: empty.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What the agent may do without asking. Default: `edit`. See {@link AgentPermissions}. */
  readonly permissions?: AgentPermissions;
  /** The agent's executable, instead of the one its npm package brings. Default: found by {@link findAgentCli}. */
  readonly executablePath?: string;
  /** Model for nodes that set no `llm_model`. Default: the agent's own default model. */
  readonly defaultModel?: string;
  /** Time between SIGTERM and SIGKILL of the agent's process group on timeout or cancel, in milliseconds. Default: 2000. */
  readonly killGraceMs?: number;
  /** Time source for durations, transcript timestamps and the kill grace. Default: the system clock. */
  readonly clock?: Clock;
}
