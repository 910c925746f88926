/**
 * `attractor mcp` (README "MCP") driven by the official MCP SDK's client: over stdio, a pipeline runs to its human
 * gate, the gate is answered and the result read; the tool guard refuses a shell command; over streamable HTTP with
 * `--port`, the server's bearer token is required.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, childEnv, temporaryDirectory } from './helpers/cli.js';

const GATED = `digraph Release {
  graph [goal="Ship the release"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  draft [label="Draft", prompt="Draft the release notes"]
  approve [shape=hexagon, label="Ship it?"]
  start -> draft -> approve
  approve -> exit [label="[Y] Yes"]
  approve -> draft [label="[N] No, redo"]
}
`;

const SHELL = `digraph Shell {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  t [shape=parallelogram, tool_command="echo hi"]
  start -> t -> exit
}
`;

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** The JSON of a tool's text result; fails the test on an error result. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const result = (await client!.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  expect(result.isError, text).not.toBe(true);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

describe('attractor mcp over stdio (official SDK client)', () => {
  it('validates, runs a pipeline to its gate, answers it, and reads the result', async () => {
    const cwd = await temporaryDirectory();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--simulate', '--runs-dir', 'runs'],
      cwd,
      env: childEnv(),
      stderr: 'pipe',
    });
    client = new Client({ name: 'attractor-test', version: '1.0.0' });
    await client.connect(transport);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'answer_question',
      'cancel_run',
      'fork_run',
      'get_events',
      'get_questions',
      'get_run',
      'list_runs',
      'read_stage_file',
      'resume_run',
      'start_run',
      'validate_pipeline',
      'wait_for_run',
    ]);

    expect(await call('validate_pipeline', { dot: GATED })).toMatchObject({ valid: true });
    const invalid = (await call('validate_pipeline', {
      dot: 'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exti }',
    })) as { valid: boolean; diagnostics: { rule: string; severity: string; line: number }[] };
    expect(invalid.valid).toBe(false);
    expect(invalid.diagnostics).toContainEqual(
      expect.objectContaining({ rule: 'edge_target_exists', severity: 'error', line: 1 }),
    );

    const started = (await call('start_run', { dot: GATED })) as { id: string };
    const waiting = (await call('wait_for_run', { run_id: started.id })) as {
      run: { state: string; waitingNodes: string[] };
      questions: { id: string; question: { text: string; options: { key: string; label: string }[] } }[];
    };
    expect(waiting.run.state).toBe('waiting');
    expect(waiting.run.waitingNodes).toEqual(['approve']);
    expect(waiting.questions).toHaveLength(1);
    const question = waiting.questions[0]!;
    expect(question.question.options.map((option) => option.key)).toEqual(['Y', 'N']);

    const answered = (await call('answer_question', {
      run_id: started.id,
      question_id: question.id,
      value: 'Y',
    })) as { questionId: string };
    expect(answered.questionId).toBe(question.id);

    const ended = (await call('wait_for_run', { run_id: started.id })) as {
      run: { state: string; completedNodes: string[] };
      questions: unknown[];
    };
    expect(ended.run.state).toBe('success');
    expect(ended.run.completedNodes).toEqual(['start', 'draft', 'approve', 'exit']);
    expect(ended.questions).toEqual([]);

    const events = (await call('get_events', { run_id: started.id })) as {
      state: string;
      events: { type: string; seq: number }[];
    };
    expect(events.state).toBe('success');
    expect(events.events.at(-1)?.type).toBe('pipeline.completed');
    expect(events.events.map((event) => event.type)).toContain('interview.completed');
    const later = (await call('get_events', {
      run_id: started.id,
      after: events.events.at(-2)!.seq,
    })) as { events: { type: string }[] };
    expect(later.events.map((event) => event.type)).toEqual(['pipeline.completed']);

    const response = await call('read_stage_file', {
      run_id: started.id,
      node_id: 'draft',
      file: 'response.md',
    });
    expect(response).toContain('draft');

    const listed = (await call('list_runs')) as { pipelines: { id: string; state: string }[] };
    expect(listed.pipelines).toContainEqual(expect.objectContaining({ id: started.id, state: 'success' }));

    // A fork after `draft` with an edited context value: it starts from that checkpoint's context plus the edit.
    const forked = (await call('fork_run', {
      run_id: started.id,
      from: 'draft',
      context: { 'release.channel': 'beta' },
    })) as { id: string };
    const forkWaiting = (await call('wait_for_run', { run_id: forked.id })) as { run: { state: string } };
    expect(forkWaiting.run.state).toBe('waiting');
    const forkCheckpoint = JSON.parse(
      await readFile(join(cwd, 'runs', forked.id, 'checkpoint.json'), 'utf8'),
    ) as { context: Record<string, unknown> };
    expect(forkCheckpoint.context['release.channel']).toBe('beta');
  });

  it('refuses a pipeline with a shell command without --allow-tools, like attractor serve', async () => {
    const cwd = await temporaryDirectory();
    client = new Client({ name: 'attractor-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--simulate', '--runs-dir', 'runs'],
        cwd,
        env: childEnv(),
        stderr: 'pipe',
      }),
    );
    const result = (await client.callTool({
      name: 'start_run',
      arguments: { dot: SHELL },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(text).toMatch(/^TOOLS_NOT_ALLOWED: /);
  });
});

describe('attractor mcp --port (streamable HTTP)', () => {
  it('answers a client with the bearer token and refuses one without', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'gated.dot'), GATED);
    const server = execa(
      'node',
      [BIN, 'mcp', '--port', '0', '--simulate', '--runs-dir', 'runs', '--pipelines', '.'],
      {
        cwd,
        env: childEnv({ ATTRACTOR_SERVER_TOKEN: 'mcp-test-token-81f2' }),
        extendEnv: false,
        reject: false,
      },
    );
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let seen = '';
        server.stderr?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const match = /at (http:\/\/\S+\/mcp)\n/.exec(seen);
          if (match !== null) resolveUrl(match[1]!);
        });
        void server.then((result) => reject(new Error(`mcp exited: ${result.stderr}`)));
      });
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);

      client = new Client({ name: 'attractor-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: 'Bearer mcp-test-token-81f2' } },
        }),
      );
      expect(await call('validate_pipeline', { dot: GATED })).toMatchObject({ valid: true });
      const started = (await call('start_run', { file: 'gated.dot' })) as { id: string };
      expect(started.id).not.toBe('');
    } finally {
      await client?.close();
      client = undefined;
      server.kill('SIGTERM');
      await server;
    }
  });
});
