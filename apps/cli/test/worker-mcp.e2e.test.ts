/**
 * MCP servers of attractor.config.* on a worker (README "MCP", "Across machines"): a run enqueued with `--queue`
 * whose LLM stage names an MCP server runs on `attractor worker`, which starts the real MCP server process of the
 * backend's test fixture from its own `--config`; the model (the scripted OpenAI server) calls the server's tool and
 * gets its answer, the server process is gone when the run ends, and the secret of the server's env reaches neither
 * the worker's log nor any row of the PostgreSQL store and queue.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { connectRunQueue, type RunQueue } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, temporaryDirectory } from './helpers/cli.js';
import { isAlive } from './helpers/process-alive.js';
import { stderrOf, until } from './helpers/until.js';

const available = postgresAvailableForTests('attractor worker MCP tests');
const FIXTURE = fileURLToPath(
  new URL('../../../packages/backend-ai-sdk/test/fixtures/lookup-mcp-server.mjs', import.meta.url),
);
const SECRET = 'worker-mcp-secret-6c0e2a9f71';

describe.skipIf(!available)('attractor worker: MCP servers of its config in LLM stages', () => {
  let server: PostgresTestServer;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
    queue = await connectRunQueue({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await server?.stop();
  });

  it('starts the server for the stage, the model gets the tool result, the server is gone, the secret stays out', async () => {
    const provider = await startScriptedOpenAIServer({
      script: [
        { type: 'tool-calls', calls: [{ name: 'lookup__lookup', arguments: { country: 'France' } }] },
        { type: 'text', text: 'Paris.' },
      ],
    });
    const dir = await temporaryDirectory('attractor-worker-mcp-');
    const pidFile = join(dir, 'mcp-server.pid');
    const config = join(dir, 'attractor.config.mjs');
    await writeFile(
      config,
      `export default {
  mcpServers: {
    lookup: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}], env: { PID_FILE: ${JSON.stringify(pidFile)}, FIXTURE_SECRET: ${JSON.stringify(SECRET)} } },
  },
};
`,
    );
    await writeFile(
      join(dir, 'capital.dot'),
      'digraph Capital {\n  start [shape=Mdiamond]\n  exit  [shape=Msquare]\n  ask [prompt="What is the capital of France?", mcp_servers="lookup"]\n  start -> ask -> exit\n}\n',
    );
    const env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    const worker = attractor(
      [
        'worker',
        '--config',
        config,
        '--allow-base-url',
        provider.baseURL,
        '--workdir-root',
        join(dir, 'work'),
      ],
      { cwd: dir, env: { ...env, OPENAI_API_KEY: 'sk-worker-mcp-0123456789' } },
    );
    const log = stderrOf(worker);
    try {
      await until(
        () => log.text.includes('at a time'),
        60_000,
        () => `the worker to start: ${log.text}`,
      );
      const enqueued = await attractor(
        [
          'run',
          'capital.dot',
          '--queue',
          '--config',
          config,
          '--base-url',
          provider.baseURL,
          '--model',
          'gpt-test',
        ],
        { cwd: dir, env },
      );
      expect(enqueued.exitCode, enqueued.stderr).toBe(0);
      const runId = enqueued.stdout.trim();
      let state: string | undefined;
      await until(
        async () => {
          state = (await queue.readRun(runId))?.state;
          return state === 'success' || state === 'fail' || state === 'cancelled';
        },
        120_000,
        () => `run ${runId} to end; it is ${state}; worker log: ${log.text}`,
      );
      const run = await queue.readRun(runId);
      expect(run?.state, run?.error).toBe('success');

      expect(provider.requests).toHaveLength(2);
      expect(JSON.stringify(provider.requests[0])).toContain('lookup__lookup');
      expect(provider.requests[1]?.messages.at(-1)?.text).toContain('The capital of France is Paris');
      const pid = Number(await readFile(pidFile, 'utf8'));
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 60_000, interval: 50 });

      // Every row of every table the store and the queue keep, as text: none holds the server's secret.
      const { rows: tables } = await queue.pool.query<{ schema: string; name: string }>(
        `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
          WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      expect(tables.length).toBeGreaterThan(0);
      const stored: string[] = [];
      for (const table of tables) {
        const { rows } = await queue.pool.query<{ row: string }>(
          `SELECT t::text AS row FROM "${table.schema}"."${table.name}" t`,
        );
        for (const { row } of rows) {
          expect(row, `${table.schema}.${table.name}`).not.toContain(SECRET);
          stored.push(row);
        }
      }
      // The stage's tool call is among the run's stored events.
      expect(stored.some((row) => /toolName[\\":\s]+lookup__lookup/.test(row))).toBe(true);
      expect(log.text).not.toContain(SECRET);
    } finally {
      worker.kill('SIGTERM');
      expect((await worker).exitCode).toBe(0);
      await provider.close();
    }
  }, 300_000);
});
