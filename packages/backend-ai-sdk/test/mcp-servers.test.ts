/**
 * MCP servers in LLM stages (README "MCP"): a real MCP server process (test/fixtures/lookup-mcp-server.mjs, the
 * official SDK on stdio) started through the AI SDK's MCP client for a pipeline whose stage names it in
 * `mcp_servers`, its tool called by the model on the scripted OpenAI server, and the process gone once the run ends.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PipelineEvent, runPipeline } from '@attractor/engine';
import { tempDir } from '@attractor/engine/test';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAiSdkBackend, type McpServerConfig } from '../src/index.js';
import {
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../src/test/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/lookup-mcp-server.mjs', import.meta.url));
const SECRET = 'fixture-secret-7f3a9c2e41';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) files.set(path, await readFile(path, 'utf8'));
  }
  return files;
}

async function runWithLookupServer(
  script: readonly ScriptedReply[],
  stageAttributes = 'mcp_servers="lookup"',
) {
  server = await startScriptedOpenAIServer({ script });
  const root = tempDir('backend-mcp-');
  const pidFile = join(root, 'mcp-server.pid');
  const mcpServers: Record<string, McpServerConfig> = {
    lookup: {
      command: process.execPath,
      args: [FIXTURE],
      env: { PID_FILE: pidFile, FIXTURE_SECRET: SECRET },
    },
  };
  const prepared = prepareGraph(
    `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      work [prompt="What is the capital of France?", ${stageAttributes}]
      start -> work -> exit
    }`,
    { mcpServers: Object.keys(mcpServers) },
  );
  expect(prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
  const events: PipelineEvent[] = [];
  const logsRoot = join(root, 'run');
  const result = await runPipeline({
    graph: prepared.graph!,
    registry: createDefaultRegistry(),
    logsRoot,
    workdir: root,
    backend: createAiSdkBackend({
      baseURL: server.baseURL,
      apiKey: 'k',
      defaultModel: 'gpt-test',
      retry: { maxAttempts: 1 },
      env: { PATH: process.env.PATH },
      mcpServers,
    }),
    onEvent: (event) => events.push(event),
  });
  const pid = Number(await readFile(pidFile, 'utf8'));
  return { result, events, logsRoot, pid };
}

describe('mcp_servers on an LLM stage', () => {
  it('offers the server tool, returns its result to the model, records the call, and stops the server', async () => {
    const { result, events, logsRoot, pid } = await runWithLookupServer([
      { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'France' } }] },
      { type: 'text', text: 'Paris.' },
    ]);

    expect(result.status).toBe('success');
    expect(server!.requests[0]!.toolNames).toContain('lookup__lookup');
    const toolResult = server!.requests[1]!.messages.at(-1);
    expect(toolResult).toMatchObject({ role: 'tool' });
    expect(toolResult?.text).toContain('The capital of France is Paris');
    // The value of the server's env reaches neither the model, nor an event, nor a file of the run.
    expect(toolResult?.text).toContain('key [REDACTED]');
    expect(JSON.stringify(server!.requests)).not.toContain(SECRET);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'agent.tool_call.started',
        nodeId: 'work',
        toolName: 'lookup__lookup',
        arguments: { country: 'France' },
      }),
    );
    const completed = events.find((event) => event.type === 'agent.tool_call.completed');
    expect(completed).toMatchObject({ toolName: 'lookup__lookup', isError: false });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    const files = await filesUnder(logsRoot);
    const transcript = files.get(join(logsRoot, 'work', 'transcript.jsonl'));
    expect(transcript).toContain('The capital of France is Paris');
    for (const [path, text] of files) expect(text, path).not.toContain(SECRET);

    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
  });

  it('stops the server when the stage fails', async () => {
    const { result, pid } = await runWithLookupServer([
      { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'Peru' } }] },
      { type: 'error', status: 401, message: 'Incorrect API key provided' },
    ]);

    expect(result.status).toBe('fail');
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 60_000, interval: 50 });
  });

  it('fails the stage naming the attribute and the defined servers for an undefined name', async () => {
    server = await startScriptedOpenAIServer({ script: [{ type: 'text', text: 'unused' }] });
    const prepared = prepareGraph(
      `digraph G {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        work [prompt="Go", mcp_servers="lookpu"]
        start -> work -> exit
      }`,
    );
    const events: PipelineEvent[] = [];
    const root = tempDir('backend-mcp-');
    const result = await runPipeline({
      graph: prepared.graph!,
      registry: createDefaultRegistry(),
      logsRoot: join(root, 'run'),
      workdir: root,
      backend: createAiSdkBackend({
        baseURL: server.baseURL,
        apiKey: 'k',
        defaultModel: 'gpt-test',
        mcpServers: { lookup: { command: process.execPath, args: [FIXTURE] } },
      }),
      onEvent: (event) => events.push(event),
    });

    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain(
      'Node "work" has mcp_servers naming "lookpu", which is not defined (defined: lookup)',
    );
    expect(server.requests).toHaveLength(0);
  });
});
