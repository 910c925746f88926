/**
 * The scripted Anthropic server and a throw-away home for the real `claude` CLI, for a test file's `describe`:
 * started before its tests, checked (no other host reached) and closed after them.
 */
import {
  anthropicWire,
  prepareAgentTestHome,
  type ScriptedServer,
  startScriptedServer,
} from '@attractor/backend-agent-cli/test';
import { afterAll, beforeAll, expect } from 'vitest';

/** What {@link useScriptedClaudeCode} gives the tests: read them inside a test, once `beforeAll` ran. */
export interface ScriptedClaudeCode {
  readonly server: ScriptedServer;
  /** The environment of the `attractor` child: Claude Code pointed at the server. */
  readonly env: Readonly<Record<string, string>>;
}

/** Registers the `beforeAll` / `afterAll` of a scripted Claude Code in the current `describe` (or file). */
export function useScriptedClaudeCode(): ScriptedClaudeCode {
  let server: ScriptedServer | undefined;
  let env: Readonly<Record<string, string>> | undefined;
  beforeAll(async () => {
    server = await startScriptedServer(anthropicWire);
    ({ env } = await prepareAgentTestHome({
      agent: 'claude-code',
      server,
      path: process.env.PATH ?? '/usr/bin:/bin',
    }));
  });
  afterAll(async () => {
    expect(server?.outbound).toEqual([]);
    await server?.close();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the scripted server starts in beforeAll');
      return server;
    },
    get env() {
      if (env === undefined) throw new Error('the agent home is made in beforeAll');
      return env;
    },
  };
}
