/**
 * `attractor mcp --store --queue` (README "MCP"): with the queue options of `attractor serve`, a run started through
 * MCP is queued for an `attractor worker` on a real PostgreSQL; the MCP tools follow it to its gate, answer it through
 * the queue, and read its events, as with a local run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { type attractor, attractorWorker, BIN, childEnv, temporaryDirectory } from './helpers/cli.js';

const available = postgresAvailableForTests('attractor mcp on a shared store tests');

const GATED = `digraph Release {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  draft [label="Draft", prompt="Draft the release notes"]
  approve [shape=hexagon, label="Ship it?"]
  start -> draft -> approve
  approve -> exit [label="[Y] Yes"]
  approve -> draft [label="[N] No, redo"]
}
`;

describe.skipIf(!available)('attractor mcp on a shared store', () => {
  let postgres: PostgresTestServer;
  let worker: ReturnType<typeof attractor> | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    postgres = await startPostgresServer();
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    worker?.kill('SIGTERM');
    await worker;
    await postgres?.stop();
  }, 60_000);

  async function call(name: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const result = (await client!.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(result.isError, text).not.toBe(true);
    return JSON.parse(text) as unknown;
  }

  it('queues the run for a worker, follows it to the gate, answers it and reads the events', async () => {
    const dir = await temporaryDirectory('attractor-mcp-shared-');
    const env = {
      ATTRACTOR_QUEUE_URL: postgres.url,
      ATTRACTOR_STORE_URL: postgres.url,
      ATTRACTOR_QUEUE_KEY: 'mcp-shared-store-queue-key-0123',
    };
    worker = attractorWorker(dir, env);
    client = new Client({ name: 'attractor-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: dir,
        env: childEnv(env),
        stderr: 'pipe',
      }),
    );

    const started = (await call('start_run', { dot: GATED, simulate: true })) as {
      id: string;
      state: string;
    };
    expect(started.state).toBe('queued');
    const waiting = (await call('wait_for_run', { run_id: started.id })) as {
      run: { state: string };
      questions: { id: string; question: { options: { key: string }[] } }[];
    };
    expect(waiting.run.state).toBe('waiting');
    expect(waiting.questions).toHaveLength(1);
    await call('answer_question', { run_id: started.id, question_id: waiting.questions[0]!.id, value: 'Y' });
    const ended = (await call('wait_for_run', { run_id: started.id })) as { run: { state: string } };
    expect(ended.run.state).toBe('success');
    const events = (await call('get_events', { run_id: started.id })) as {
      state: string;
      events: { type: string }[];
    };
    expect(events.state).toBe('success');
    expect(events.events.at(-1)?.type).toBe('pipeline.completed');
  }, 180_000);
});
