/**
 * The start every CLI-spawning agent backend (Codex, Gemini CLI) shares: find the executable, pick the session to
 * resume, write the stage's prompt and open its transcript.
 */
import type { Clock, CodergenRequest } from '@attractor/engine';
import type { AgentName } from './agent-name.js';
import type { AgentSessions } from './agent-sessions.js';
import { type AgentStage, startAgentStage } from './agent-stage.js';
import { type AgentCliLocation, findAgentCli } from './find-agent-cli.js';

/** Options of {@link startCliAgentStage}. */
export interface StartCliAgentStageOptions {
  readonly request: CodergenRequest;
  readonly agent: Exclude<AgentName, 'claude-code'>;
  /** The backend's sessions (thread key → agent session id), for `full` fidelity. */
  readonly sessions: AgentSessions;
  /** The environment of the agent process (secret-named values are masked in the stage's files). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The backend's `executablePath` option, when set. */
  readonly executablePath: string | undefined;
  readonly clock: Clock;
  /** Whether the stage's `output_schema` goes into the prompt (see `StartAgentStageOptions`). Default: false. */
  readonly outputSchemaInPrompt?: boolean;
}

/** What {@link startCliAgentStage} returns. */
export interface CliAgentStageStart {
  /** Where the agent CLI is. */
  readonly location: AgentCliLocation;
  /** The agent's session id to continue, for `full` fidelity on a thread it already served. */
  readonly resume: string | undefined;
  readonly stage: AgentStage;
}

/**
 * Starts a stage of a CLI agent.
 * @throws {AgentCliMissingError} when the agent's executable is not found.
 * @throws the abort reason when the stage was already cancelled.
 */
export async function startCliAgentStage(options: StartCliAgentStageOptions): Promise<CliAgentStageStart> {
  const { request } = options;
  request.abortSignal.throwIfAborted();
  const location = findAgentCli(options.agent, {
    env: options.env,
    ...(options.executablePath === undefined ? {} : { executablePath: options.executablePath }),
  });
  const resume = options.sessions.sessionToResume(request);
  const stage = await startAgentStage({
    request,
    agent: options.agent,
    resumed: resume !== undefined,
    env: options.env,
    clock: options.clock,
    ...(options.outputSchemaInPrompt === undefined
      ? {}
      : { outputSchemaInPrompt: options.outputSchemaInPrompt }),
  });
  return { location, resume, stage };
}
