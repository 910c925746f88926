/**
 * A throw-away home directory and environment for running a real agent CLI against a {@link ScriptedServer}:
 * the CLI's config points it at the server, telemetry, analytics and update checks are off, and the server is the
 * CLI's HTTP(S) proxy so any other host it tries shows up in `server.outbound`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentName } from '../agent-name.js';
import type { ScriptedServer } from './scripted-server.js';

/** A prepared home: pass `env` as the backend's `env`. */
export interface AgentTestHome {
  readonly home: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Options of {@link prepareAgentTestHome}. */
export interface PrepareAgentTestHomeOptions {
  readonly agent: AgentName;
  readonly server: ScriptedServer;
  /** `PATH` of the agent (it runs shell commands with it). */
  readonly path: string;
}

/**
 * Creates the home directory and environment for `agent`:
 * - Claude Code: `ANTHROPIC_BASE_URL` and a test key, `CLAUDE_CONFIG_DIR` in the home, `DISABLE_TELEMETRY`,
 *   `DISABLE_ERROR_REPORTING`, `DISABLE_AUTOUPDATER`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`;
 * - Codex: `$CODEX_HOME/config.toml` with a `scripted` Responses-API provider at the server, update checks,
 *   analytics and plugins off, model `gpt-5.1-codex`; `TMPDIR` inside the home, since Codex makes no sandbox helper
 *   under its temporary directory, and without the helper its sandbox cannot start where a system `bwrap` is
 *   installed (`bwrap: execvp codex-linux-sandbox`);
 * - Gemini CLI: `GOOGLE_GEMINI_BASE_URL` and a test key, `GEMINI_CLI_HOME/.gemini/settings.json` with usage
 *   statistics, telemetry and auto-update off.
 */
export async function prepareAgentTestHome(options: PrepareAgentTestHomeOptions): Promise<AgentTestHome> {
  const { server } = options;
  const home = await mkdtemp(join(tmpdir(), `agent-home-${options.agent}-`));
  const common = {
    PATH: options.path,
    HOME: home,
    HTTP_PROXY: server.url,
    HTTPS_PROXY: server.url,
    NO_PROXY: '127.0.0.1,localhost',
  };
  switch (options.agent) {
    case 'claude-code':
      await mkdir(join(home, '.claude'), { recursive: true });
      return {
        home,
        env: {
          ...common,
          CLAUDE_CONFIG_DIR: join(home, '.claude'),
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      };
    case 'codex':
      await mkdir(join(home, '.codex'), { recursive: true });
      await mkdir(join(home, 'tmp'));
      await writeFile(
        join(home, '.codex', 'config.toml'),
        [
          'check_for_update_on_startup = false',
          'model = "gpt-5.1-codex"',
          'model_provider = "scripted"',
          '[model_providers.scripted]',
          'name = "scripted"',
          `base_url = "${server.url}/v1"`,
          'wire_api = "responses"',
          'env_key = "SCRIPTED_API_KEY"',
          '[analytics]',
          'enabled = false',
          '[features]',
          'plugins = false',
          '',
        ].join('\n'),
      );
      return {
        home,
        env: {
          ...common,
          CODEX_HOME: join(home, '.codex'),
          TMPDIR: join(home, 'tmp'),
          SCRIPTED_API_KEY: 'sk-scripted-0123456789',
        },
      };
    case 'gemini-cli':
      await mkdir(join(home, '.gemini'), { recursive: true });
      await writeFile(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
          security: { auth: { selectedType: 'gemini-api-key' } },
        }),
      );
      return {
        home,
        env: {
          ...common,
          GEMINI_CLI_HOME: home,
          GEMINI_API_KEY: 'gm-scripted-0123456789',
          GOOGLE_GEMINI_BASE_URL: server.url,
        },
      };
  }
}
