/**
 * An agent CLI under the run's sandbox (`CodergenRequest.sandbox`): besides the working directory it may write the
 * stage directory and where it keeps its own state (login, settings, sessions).
 */
import { join } from 'node:path';
import type { CodergenRequest } from '@attractor/engine';
import type { AgentName } from './agent-name.js';
import type { StartAgentProcessOptions } from './agent-process.js';

/**
 * The `sandbox` option of `startAgentProcess` for a stage of `agent` started with `env`: the run's sandbox with the
 * stage directory and the agent's state ({@link agentStatePaths}) writable. Empty when the run has no sandbox.
 */
export function agentSandbox(
  agent: AgentName,
  request: CodergenRequest,
  env: Readonly<Record<string, string | undefined>>,
): Pick<StartAgentProcessOptions, 'sandbox'> {
  if (request.sandbox === undefined) return {};
  return {
    sandbox: { sandbox: request.sandbox, writable: [request.stageDir, ...agentStatePaths(agent, env)] },
  };
}

/**
 * The files and directories `agent` writes its state to, from its environment: Claude Code `$CLAUDE_CONFIG_DIR`
 * (default `~/.claude`) and `~/.claude.json`; Codex `$CODEX_HOME` (default `~/.codex`); Gemini CLI
 * `$GEMINI_CLI_HOME/.gemini` (default `~/.gemini`). Paths whose variables are unset are left out. Pure.
 */
export function agentStatePaths(
  agent: AgentName,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const home = env.HOME;
  const inHome = (...names: string[]) => (home === undefined ? [] : [join(home, ...names)]);
  switch (agent) {
    case 'claude-code':
      return [
        ...(env.CLAUDE_CONFIG_DIR === undefined ? inHome('.claude') : [env.CLAUDE_CONFIG_DIR]),
        ...inHome('.claude.json'),
      ];
    case 'codex':
      return env.CODEX_HOME === undefined ? inHome('.codex') : [env.CODEX_HOME];
    case 'gemini-cli':
      return env.GEMINI_CLI_HOME === undefined ? inHome('.gemini') : [join(env.GEMINI_CLI_HOME, '.gemini')];
  }
}
