/**
 * The agent sessions a backend keeps for `full` fidelity (spec §5.4): per thread key, the agent's session id of
 * the last stage on that thread. Kept in memory, so a resumed run (a new process) starts fresh sessions, as spec
 * §5.3 asks of the first stage after a resume.
 */
import type { CodergenRequest } from '@attractor/engine';

/** Session ids by thread key. */
export interface AgentSessions {
  /** The session to continue for this request: only under `full` fidelity, and only when one is known. */
  sessionToResume(request: CodergenRequest): string | undefined;
  /** Remembers the session of a finished stage under its thread key and its node id. */
  remember(request: CodergenRequest, sessionId: string): void;
  /** The session id kept for a thread key. */
  get(threadKey: string): string | undefined;
}

/** Creates an empty session memory. */
export function createAgentSessions(): AgentSessions {
  const sessions = new Map<string, string>();
  return {
    sessionToResume: (request) => (request.fidelity === 'full' ? sessions.get(request.threadKey) : undefined),
    remember(request, sessionId) {
      // A following `full` stage without an explicit thread gets the previous node id as its key (spec §5.4).
      if (request.fidelity === 'full') sessions.set(request.threadKey, sessionId);
      sessions.set(request.node.id, sessionId);
    },
    get: (threadKey) => sessions.get(threadKey),
  };
}
