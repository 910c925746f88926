/**
 * Issue 34 "Workers" 3 and 4 with real processes: the worker decides what it executes (tool stages, LLM endpoints,
 * files), whoever enqueued the run; a row written into the queue's table by anyone without the queue key is refused;
 * no file outside the pipeline's directory is quoted; secrets never reach the queue's row, and the worker takes
 * them from its own environment.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { RunCatalog } from '@attractor/engine';
import { createPostgresRunCatalog } from '@attractor/store-postgres';
import { connectRunQueue, type RunQueue } from '@attractor/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestServer,
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';
import { attractor, FIXTURES, temporaryDirectory } from './helpers/cli.js';
import { stderrOf, until } from './helpers/until.js';

const available = postgresAvailableForTests('attractor worker policy tests');
const RELAY = join(FIXTURES, 'relay.dot');
const PLUGINS = join(FIXTURES, 'worker-plugins');
const CONFIG = join(PLUGINS, 'attractor.config.mjs');
const QUEUE_KEY = 'a-queue-key-of-32-characters-xyz';
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

describe.skipIf(!available)('attractor worker: its own policy, signed rows, masked rows (issue 34)', () => {
  let server: PostgresTestServer;
  let dir: string;
  let env: Record<string, string>;
  let catalog: RunCatalog;
  let queue: RunQueue;
  beforeAll(async () => {
    server = await startPostgresServer();
    dir = await temporaryDirectory('attractor-worker-policy-');
    env = { ATTRACTOR_QUEUE_URL: server.url, ATTRACTOR_STORE_URL: server.url };
    catalog = createPostgresRunCatalog({ connectionString: server.url });
    queue = await connectRunQueue({ url: server.url });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await catalog?.close();
    await server?.stop();
  });

  /** `attractor worker` without the test helper's --allow-tools: its policy is `extra` alone. */
  const startWorker = (extra: readonly string[], extraEnv: Record<string, string> = {}) => {
    const child = attractor(
      ['worker', '--workdir-root', join(dir, 'work'), '--heartbeat-seconds', '10', ...extra],
      { cwd: dir, env: { ...env, ...extraEnv } },
    );
    return { child, log: stderrOf(child) };
  };
  const started = async (worker: ReturnType<typeof startWorker>) =>
    until(
      () => worker.log.text.includes('at a time'),
      60_000,
      () => `the worker to start: ${worker.log.text}`,
    );
  const stop = async (worker: ReturnType<typeof startWorker>) => {
    worker.child.kill('SIGTERM');
    expect((await worker.child).exitCode).toBe(0);
  };
  const ended = async (runId: string) => {
    let state: string | undefined;
    await until(
      async () => {
        state = (await queue.readRun(runId))?.state;
        return state === 'success' || state === 'fail' || state === 'cancelled';
      },
      90_000,
      () => `run ${runId} to end; it is ${state}`,
    );
    return (await queue.readRun(runId))!;
  };
  const enqueueWithCli = async (args: readonly string[], extraEnv: Record<string, string> = {}) => {
    const result = await attractor(['run', ...args, '--queue'], { cwd: dir, env: { ...env, ...extraEnv } });
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout.trim();
  };

  it('refuses tool stages without --allow-tools, also a plug-in handler that declares runsCommand; runs them with it', async () => {
    const strict = startWorker(['--config', CONFIG]);
    let relayId: string;
    let deployId: string;
    try {
      await started(strict);
      relayId = await enqueueWithCli([RELAY, '--simulate']);
      deployId = await enqueueWithCli([join(PLUGINS, 'deploy.dot'), '--simulate', '--config', CONFIG]);
      const relay = await ended(relayId);
      expect(relay.state).toBe('fail');
      expect(relay.error).toContain(
        `Refused by this worker's policy: the pipeline can run shell commands (tool node "a" (line 4), tool node "b" (line 6), tool node "c" (line 7))`,
      );
      expect(relay.error).toContain('--allow-tools');
      const deploy = await ended(deployId);
      expect(deploy.state).toBe('fail');
      expect(deploy.error).toContain('node "ship" (line 3), whose "deploy" handler runs commands');
      expect(existsSync(join(dir, 'work', deployId, 'deployed.txt'))).toBe(false);
      expect(existsSync(join(dir, 'work', relayId, 'trail.txt'))).toBe(false);
    } finally {
      await stop(strict);
    }
    const allowing = startWorker(['--config', CONFIG, '--allow-tools']);
    try {
      await started(allowing);
      const runId = await enqueueWithCli([join(PLUGINS, 'deploy.dot'), '--simulate', '--config', CONFIG]);
      expect((await ended(runId)).state).toBe('success');
      expect(await readFile(join(dir, 'work', runId, 'deployed.txt'), 'utf8')).toBe('deployed\n');
    } finally {
      await stop(allowing);
    }
  }, 240_000);

  it('never sends its key to an endpoint the run asks for unless --allow-base-url names it', async () => {
    let requests = 0;
    const endpoint = createServer((_request, response) => {
      requests += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/v1`;
    const worker = startWorker([], { OPENAI_API_KEY: 'sk-worker-key-0123456789abcdef' });
    try {
      await started(worker);
      const source = join(dir, 'ask.dot');
      await writeFile(
        source,
        'digraph ask { start [shape=Mdiamond]; plan [prompt="Plan", llm_model="gpt-4o"]; done [shape=Msquare]; start -> plan -> done }\n',
      );
      const runId = await enqueueWithCli([source, '--base-url', baseUrl]);
      const run = await ended(runId);
      expect(run.state).toBe('fail');
      expect(run.error).toBe(
        `Refused by this worker's policy: the run asks for the LLM endpoint ${baseUrl} (--base-url), which this worker does not send its keys to. Start the worker with --allow-base-url ${baseUrl} to allow it, or enqueue without --base-url.`,
      );
      expect(requests).toBe(0);
      expect(worker.log.text).not.toContain('sk-worker-key');
    } finally {
      await stop(worker);
      endpoint.close();
    }
  }, 180_000);

  it('with --allow-provider, refuses a run or a stage that asks for another provider and never calls it', async () => {
    let requests = 0;
    const endpoint = createServer((_request, response) => {
      requests += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}/v1`;
    // Both providers' keys and endpoints are the worker's own: only its policy stops the call.
    const worker = startWorker(['--allow-provider', 'openai'], {
      OPENAI_API_KEY: 'sk-worker-key-0123456789abcdef',
      ANTHROPIC_API_KEY: 'sk-ant-worker-key-0123456789abcdef',
      OPENAI_BASE_URL: baseUrl,
      ANTHROPIC_BASE_URL: baseUrl,
    });
    try {
      await started(worker);
      const runWide = await queue.enqueueRun({
        source:
          'digraph ask { start [shape=Mdiamond]; plan [prompt="Plan"]; done [shape=Msquare]; start -> plan -> done }',
        options: { provider: 'anthropic' },
      });
      const perStage = await queue.enqueueRun({
        source:
          'digraph ask { start [shape=Mdiamond]; plan [prompt="Plan", llm_model="claude-sonnet-4-6"]; done [shape=Msquare]; start -> plan -> done }',
      });
      const [byRun, byStage] = await Promise.all([runWide, perStage].map(ended));
      expect(byRun?.state).toBe('fail');
      expect(byRun?.error).toBe(
        `Refused by this worker's policy: --provider uses the provider "anthropic", and this worker allows only openai (--allow-provider). Start the worker with --allow-provider anthropic to allow it.`,
      );
      expect(byStage?.state).toBe('fail');
      expect(byStage?.error).toBe(
        `Refused by this worker's policy: stage "plan" uses the provider "anthropic", and this worker allows only openai (--allow-provider). Start the worker with --allow-provider anthropic to allow it.`,
      );
      expect(requests).toBe(0);
      expect(worker.log.text).not.toContain('sk-ant-worker-key');
    } finally {
      await stop(worker);
      endpoint.close();
    }
  }, 180_000);

  it('with a queue key, refuses a row that was not signed with it or was changed after; runs a signed one', async () => {
    // An attacker with database access only: a row enqueued without the key, and a signed row changed afterwards.
    const unsignedId = await queue.enqueueRun({
      source: 'digraph x { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }',
    });
    const signedId = await enqueueWithCli([RELAY, '--simulate'], { ATTRACTOR_QUEUE_KEY: QUEUE_KEY });
    // The test's own queue connection stands for the attacker's SQL client.
    await queue.pool.query(
      `UPDATE attractor_queue.runs SET request = jsonb_set(request, '{source}', to_jsonb($2::text)) WHERE run_id = $1`,
      [
        signedId,
        'digraph x { start [shape=Mdiamond]; evil [shape=parallelogram, tool_command="touch pwned"]; done [shape=Msquare]; start -> evil -> done }',
      ],
    );
    const worker = startWorker(['--allow-tools'], { ATTRACTOR_QUEUE_KEY: QUEUE_KEY });
    try {
      await started(worker);
      expect(worker.log.text).toContain('runs signed with ATTRACTOR_QUEUE_KEY only');
      expect(worker.log.text).not.toContain(QUEUE_KEY);
      const unsigned = await ended(unsignedId);
      expect(unsigned.state).toBe('fail');
      expect(unsigned.error).toContain("refused: the run's request is not signed");
      // The refusal shows where an operator looks: the runs list says why, inspect says the queue alone has the run.
      const listed = await attractor(['runs', '--status', 'fail'], { cwd: dir, env });
      expect(listed.stdout).toMatch(
        new RegExp(`^${unsignedId} {2}fail \\(refused: the run's request is not signed`, 'm'),
      );
      const inspected = await attractor(['inspect', unsignedId], { cwd: dir, env });
      expect(inspected.exitCode).not.toBe(0);
      expect(inspected.stderr).toContain(
        `Run "${unsignedId}" is in the run queue only: fail: refused: the run's request is not signed`,
      );
      const changed = await ended(signedId);
      expect(changed.state).toBe('fail');
      expect(changed.error).toContain('signed with another key, or was changed after it was enqueued');
      expect(existsSync(join(dir, 'work', signedId, 'pwned'))).toBe(false);
      const goodId = await enqueueWithCli([RELAY, '--simulate'], { ATTRACTOR_QUEUE_KEY: QUEUE_KEY });
      expect((await ended(goodId)).state).toBe('success');
    } finally {
      await stop(worker);
    }
  }, 240_000);

  it('refuses files outside its --allow-dir directories, and never quotes a file outside the pipeline directory', async () => {
    const subgraph =
      'digraph s { start [shape=Mdiamond]; s [type="subgraph", graph_ref="/etc/passwd"]; done [shape=Msquare]; start -> s -> done }';
    const simple =
      'digraph p { start [shape=Mdiamond]; plan [prompt="Plan"]; done [shape=Msquare]; start -> plan -> done }';
    const worker = startWorker(['--allow-tools']);
    const ids: string[] = [];
    try {
      await started(worker);
      // Enqueued as anyone with access to the queue could: not through the CLI, which lints the files first.
      ids.push(
        await queue.enqueueRun({
          source: subgraph,
          filename: join(dir, 's.dot'),
          options: { simulate: true },
        }),
      );
      ids.push(await queue.enqueueRun({ source: simple, options: { simulateScript: '/etc/passwd' } }));
      const [child, script] = await Promise.all(ids.map(ended));
      expect(child?.error).toContain(
        `the child pipeline of node "s" (graph_ref) /etc/passwd is outside the directories this worker reads files from`,
      );
      expect(script?.error).toContain('the --simulate-script file /etc/passwd is outside the directories');
    } finally {
      await stop(worker);
    }
    // A worker allowed to read /etc still never copies the file's lines into a reason, an event or its log.
    const trusting = startWorker(['--allow-tools', '--allow-dir', '/etc', '--allow-dir', dir]);
    try {
      await started(trusting);
      const readIds = [
        await queue.enqueueRun({
          source: subgraph,
          filename: join(dir, 's.dot'),
          options: { simulate: true },
        }),
        await queue.enqueueRun({ source: simple, options: { simulateScript: '/etc/passwd' } }),
      ];
      ids.push(...readIds);
      const [child, script] = await Promise.all(readIds.map(ended));
      expect(child?.state).toBe('fail');
      expect(script?.state).toBe('fail');
      expect(script?.error).toContain('Simulation script /etc/passwd is invalid: it is not valid JSON');
      const events = JSON.stringify(await catalog.open(readIds[0]!).readEvents());
      expect(events).toContain("outside the pipeline's directory, so its content is not shown");
      for (const text of [events, JSON.stringify(child), JSON.stringify(script), trusting.log.text]) {
        expect(text).not.toContain('root:x');
      }
    } finally {
      await stop(trusting);
    }
  }, 240_000);

  it("reads a queued run's --prices file bounded: a FIFO is refused at once, a file that is not JSON is named, never quoted", async () => {
    const simple =
      'digraph p { start [shape=Mdiamond]; plan [prompt="Plan"]; done [shape=Msquare]; start -> plan -> done }';
    const fifo = join(dir, 'prices-fifo.json');
    execFileSync('mkfifo', [fifo]);
    const passwd = join(dir, 'prices-passwd');
    await writeFile(passwd, 'root:x:0:0:root:/root:/bin/bash\n');
    const worker = startWorker(['--allow-dir', dir]);
    try {
      await started(worker);
      const ids = [
        await queue.enqueueRun({ source: simple, options: { prices: fifo } }),
        await queue.enqueueRun({ source: simple, options: { prices: passwd } }),
      ];
      const [fromFifo, fromPasswd] = await Promise.all(ids.map(ended));
      expect(fromFifo?.state).toBe('fail');
      expect(fromFifo?.error).toContain(
        `The price file (--prices) ${fifo} is a FIFO (named pipe), not a regular file`,
      );
      expect(fromPasswd?.state).toBe('fail');
      expect(fromPasswd?.error).toContain(`The price file ${passwd} (--prices) is not valid JSON.`);
      const events = JSON.stringify(await catalog.open(ids[1]!).readEvents());
      for (const text of [events, JSON.stringify(fromPasswd), worker.log.text]) {
        expect(text).not.toContain('root:x');
      }
    } finally {
      await stop(worker);
    }
  }, 240_000);

  it("stores a --set secret masked in the queue's row; the worker takes it from its environment, or refuses the run naming the variable", async () => {
    const worker = startWorker(['--config', CONFIG], { DEPLOY_TOKEN: TOKEN });
    try {
      await started(worker);
      const record = join(PLUGINS, 'record-secret.dot');
      const runId = await enqueueWithCli([
        record,
        '--simulate',
        '--config',
        CONFIG,
        '--set',
        `deploy_token=${TOKEN}`,
      ]);
      const { rows } = await queue.pool.query<{ request: string }>(
        'SELECT request::text AS request FROM attractor_queue.runs WHERE run_id = $1',
        [runId],
      );
      expect(rows[0]?.request).toContain('"deploy_token": "[REDACTED]"');
      expect(rows[0]?.request).not.toContain(TOKEN);
      expect((await ended(runId)).state).toBe('success');
      // The run got the real value (from the worker's DEPLOY_TOKEN); what it wrote to the store is masked.
      expect(await readFile(join(dir, 'work', runId, 'secret.txt'), 'utf8')).toBe(TOKEN);
      const store = catalog.open(runId);
      expect(JSON.stringify(await store.readEvents())).not.toContain(TOKEN);
      expect(JSON.stringify(await store.readCheckpoint())).not.toContain(TOKEN);

      const missingId = await enqueueWithCli([
        record,
        '--simulate',
        '--config',
        CONFIG,
        '--set',
        'deploy_token=x',
        '--set',
        'api_token=abcd1234',
      ]);
      const missing = await ended(missingId);
      expect(missing.state).toBe('fail');
      expect(missing.error).toContain("this worker's environment does not have them: api_token (API_TOKEN)");
      expect(existsSync(join(dir, 'work', missingId, 'secret.txt'))).toBe(false);
    } finally {
      await stop(worker);
    }
    // A secret inside a value whose key does not name one cannot be masked without changing it: refused at enqueue.
    const refused = await attractor(
      ['run', RELAY, '--simulate', '--queue', '--set', `repo_url=https://${TOKEN}@example.com/r.git`],
      { cwd: dir, env },
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('context.repo_url holds a secret');
    expect(refused.stderr).not.toContain(TOKEN);
  }, 240_000);
});
