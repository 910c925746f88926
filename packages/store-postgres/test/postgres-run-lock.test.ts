import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import { RunLockedError } from '@attractor/engine';
import { killProcessGroup, processGroupAlive } from '@attractor/engine/internal';
import { createTestCheckpoint } from '@attractor/engine/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresRunCatalog, type PostgresRunCatalog } from '../src/index.js';
import { adminQuery, freshSchema, postgresAvailable, usePostgresServer } from './support/postgres.js';

const holdLock = new URL('./fixtures/hold-lock.mjs', import.meta.url).pathname;

describe.skipIf(!postgresAvailable)('the PostgreSQL run lock across processes', () => {
  const server = usePostgresServer();
  const schema = freshSchema();
  let catalog: PostgresRunCatalog;
  const children: ChildProcess[] = [];
  const groups: number[] = [];
  beforeAll(async () => {
    catalog = createPostgresRunCatalog({ connectionString: server().url, schema });
    await catalog.migrate();
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const group of groups.splice(0)) killProcessGroup(group, 'SIGKILL');
  });
  afterAll(async () => {
    await catalog?.close();
  });

  /** Starts a runner process that takes the lock of `runId`; resolves once it holds it. */
  async function startHolder(runId: string): Promise<{ child: ChildProcess; pid: number; group: number }> {
    const child = spawn(process.execPath, [holdLock, server().url, schema, runId], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
    });
    const { pid, group } = JSON.parse(first) as { pid: number; group: number };
    groups.push(group);
    return { child, pid, group };
  }

  it('refuses the run to a second runner while another process holds it, naming that process', async () => {
    const runId = randomUUID();
    const holder = await startHolder(runId);
    const store = catalog.open(runId);
    const refused = await store
      .acquireLock({ since: '2026-01-01T00:00:00.000Z' })
      .catch((error: unknown) => error);
    expect(RunLockedError.isInstance(refused)).toBe(true);
    expect((refused as RunLockedError).holder).toMatchObject({
      pid: holder.pid,
      host: hostname(),
      process_groups: [holder.group],
    });
    expect((refused as Error).message).toContain(`process ${holder.pid} on host ${hostname()}`);
    expect(await store.readLock()).toMatchObject({ pid: holder.pid });
    const listed = (await catalog.listRuns()).length;
    expect(listed).toBe(0);
  });

  it('takes over the run of a runner killed with SIGKILL and ends the commands it left running', async () => {
    const runId = randomUUID();
    const holder = await startHolder(runId);
    expect(processGroupAlive(holder.group)).toBe(true);
    const exited = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await exited;
    // The dead runner's command still runs until the next runner takes over.
    expect(processGroupAlive(holder.group)).toBe(true);
    const store = catalog.open(runId);
    const deadline = Date.now() + 10_000;
    let lock: Awaited<ReturnType<typeof store.acquireLock>> | undefined;
    while (lock === undefined) {
      try {
        lock = await store.acquireLock({ since: '2026-01-02T00:00:00.000Z' });
      } catch (error) {
        // The server may need a moment to notice the closed connection.
        if (!RunLockedError.isInstance(error) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(lock.endedProcessGroups).toEqual([holder.group]);
    await waitUntil(() => !processGroupAlive(holder.group));
    expect(await store.readLock()).toEqual({
      pid: process.pid,
      host: hostname(),
      since: '2026-01-02T00:00:00.000Z',
    });
    await lock.release();
    expect(await store.readLock()).toBeUndefined();
  });

  it('stops a runner from writing checkpoints once the connection holding its lock is gone', async () => {
    const runId = randomUUID();
    const store = catalog.open(runId);
    const lock = await store.acquireLock({ since: '2026-01-01T00:00:00.000Z' });
    await store.writeCheckpoint(createTestCheckpoint({ step_count: 1 }));
    // What a PostgreSQL restart or a network cut does to the lock's connection.
    await adminQuery(
      server().url,
      `SELECT pg_terminate_backend(backend_pid) FROM "${schema}".run_locks WHERE run_key = $1`,
      [runId],
    );
    const deadline = Date.now() + 10_000;
    let refused: unknown;
    while (refused === undefined && Date.now() < deadline) {
      refused = await Promise.resolve(store.writeCheckpoint(createTestCheckpoint({ step_count: 2 }))).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refused === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(String(refused)).toMatch(
      /the connection holding the run lock ended, so another runner may take this run over/,
    );
    // Another runner takes the run over.
    const other = createPostgresRunCatalog({ connectionString: server().url, schema });
    try {
      const taken = await other.open(runId).acquireLock({ since: '2026-01-02T00:00:00.000Z' });
      await taken.release();
    } finally {
      await other.close();
    }
    await lock.release();
  });

  it('lets exactly one of many concurrent takers win', async () => {
    const runId = randomUUID();
    const others = Array.from({ length: 3 }, () =>
      createPostgresRunCatalog({ connectionString: server().url, schema }),
    );
    try {
      const attempts = await Promise.allSettled(
        [catalog, ...others].map((each) =>
          each.open(runId).acquireLock({ since: '2026-01-01T00:00:00.000Z' }),
        ),
      );
      const won = attempts.flatMap((attempt) => (attempt.status === 'fulfilled' ? [attempt.value] : []));
      expect(won).toHaveLength(1);
      for (const attempt of attempts) {
        if (attempt.status === 'rejected') expect(RunLockedError.isInstance(attempt.reason)).toBe(true);
      }
      await won[0]!.release();
    } finally {
      for (const other of others) await other.close();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
