/**
 * The coding-agent CLIs this package drives, and where each comes from on npm.
 */

/** The agents, by the name `--backend` and the node attribute `backend` use. */
export const AGENT_NAMES = ['claude-code', 'codex', 'gemini-cli'] as const;

/** One of {@link AGENT_NAMES}. */
export type AgentName = (typeof AGENT_NAMES)[number];

/**
 * The npm package that brings each agent: the Claude Agent SDK (with its bundled `claude` binary), the Codex CLI,
 * the Gemini CLI. Preflight names it when the agent is missing.
 */
export const AGENT_PACKAGES = {
  'claude-code': '@anthropic-ai/claude-agent-sdk',
  codex: '@openai/codex',
  'gemini-cli': '@google/gemini-cli',
} as const satisfies Record<AgentName, string>;

/** Whether `value` is one of {@link AGENT_NAMES}. */
export function isAgentName(value: string): value is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(value);
}
