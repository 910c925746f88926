/**
 * `mcpServers` in attractor.config.* and `mcp_servers` on a stage (README "MCP"): `attractor run` starts the real MCP
 * server process of the backend's test fixture, the model (the scripted OpenAI server) calls its tool, and the
 * secret of the server's env reaches neither the console nor the run directory; `validate` names an undefined server.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it, vi } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const FIXTURE = fileURLToPath(
  new URL('../../../packages/backend-ai-sdk/test/fixtures/lookup-mcp-server.mjs', import.meta.url),
);
const SECRET = 'mcp-env-secret-93b1d7e2c5';

function config(pidFile: string): string {
  return `export default {
  mcpServers: {
    lookup: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}], env: { PID_FILE: ${JSON.stringify(pidFile)}, FIXTURE_SECRET: ${JSON.stringify(SECRET)} } },
    docs: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer docs-token-5512' } },
  },
};
`;
}

function pipeline(servers: string): string {
  return `digraph Capital {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  ask [prompt="What is the capital of France?", mcp_servers="${servers}"]
  start -> ask -> exit
}
`;
}

async function readTree(directory: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of await readdir(directory, { recursive: true })) {
    const path = join(directory, name);
    if ((await stat(path)).isFile()) files.set(path, await readFile(path, 'utf8'));
  }
  return files;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP servers of attractor.config.* in LLM stages', () => {
  it('run: the stage calls the server tool, the result reaches the model, the server is gone afterwards', async () => {
    const server = await startScriptedOpenAIServer({
      script: [
        { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'France' } }] },
        { type: 'text', text: 'Paris.' },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      const pidFile = join(cwd, 'server.pid');
      await writeFile(join(cwd, 'attractor.config.mjs'), config(pidFile));
      await writeFile(join(cwd, 'capital.dot'), pipeline('lookup'));
      const result = await attractor(
        ['run', 'capital.dot', '--base-url', server.baseURL, '--model', 'gpt-test', '--logs-dir', 'run'],
        { cwd, env: { OPENAI_API_KEY: 'sk-test-mcp-1' } },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      const toolMessage = server.requests[1]?.messages.at(-1);
      expect(toolMessage?.text).toContain('The capital of France is Paris');
      const events = await readFile(join(cwd, 'run', 'events.jsonl'), 'utf8');
      expect(events).toContain('"toolName":"lookup__lookup"');
      for (const [path, text] of await readTree(join(cwd, 'run'))) expect(text, path).not.toContain(SECRET);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      const pid = Number(await readFile(pidFile, 'utf8'));
      await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
    } finally {
      await server.close();
    }
  });

  it('validate: an undefined server name is an error naming mcp_servers and the defined servers', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'attractor.config.mjs'), config(join(cwd, 'unused.pid')));
    await writeFile(join(cwd, 'capital.dot'), pipeline('lookpu'));
    const result = await attractor(['validate', 'capital.dot'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      'error[mcp_server_known]: Node "ask" has mcp_servers naming "lookpu", which the configuration does not define (it defines lookup, docs). Did you mean "lookup"?',
    );
    expect(result.stdout).toContain('capital.dot:4:');
  });

  it('refuses a server with neither command nor url, naming the config file and the field', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      'export default { mcpServers: { x: { args: [] } } };\n',
    );
    await writeFile(join(cwd, 'capital.dot'), pipeline('x'));
    const result = await attractor(['validate', 'capital.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'Config file attractor.config.mjs: mcpServers.x needs exactly one of command (a program started with stdio) and url (an HTTP endpoint).',
    );
  });
});
