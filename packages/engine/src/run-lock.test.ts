import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { startCrashRunner } from '../test/crash-runner.js';
import { tempDir } from '../test/helpers.js';
import { RunLockedError } from './errors/run-locked-error.js';
import { acquireFileRunLock, RUN_LOCK_DIRECTORY, RUN_LOCK_FILE } from './file-run-lock.js';
import { createFileRunStore } from './file-run-store.js';
import { HandlerRegistry } from './handler-registry.js';
import { resumePipeline, runPipeline } from './run-pipeline.js';
import { createTestGraph } from './test/graph-builder.js';

interface Finished {
  readonly signal: NodeJS.Signals | null;
  readonly output: { status?: string; error?: string; message?: string };
}

function startRunner(mode: 'run' | 'resume', logsRoot: string, env: Record<string, string> = {}) {
  const { child, finished } = startCrashRunner(mode, logsRoot, env);
  return {
    child,
    finished: finished.then((exit): Finished => {
      const last = exit.stdout.trim().split('\n').at(-1) ?? '';
      return { signal: exit.signal, output: last === '' ? {} : JSON.parse(last) };
    }),
  };
}

/** A run of the crash fixture that was SIGKILLed after its third event (resumable). */
async function killedRun(): Promise<string> {
  const logsRoot = join(tempDir(), 'run');
  const first = await startRunner('run', logsRoot, { KILL_AT_EVENT: '3' }).finished;
  expect(first.signal).toBe('SIGKILL');
  return logsRoot;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 90_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function holderOf(logsRoot: string): { pid: number; host: string; since: string; process_groups?: number[] } {
  return JSON.parse(readFileSync(join(logsRoot, RUN_LOCK_FILE), 'utf8'));
}

describe('run lock (docs/architecture.md "Checkpoint": one run, one runner)', () => {
  it('refuses a second holder, naming pid, host and since, until the first releases', async () => {
    const directory = tempDir();
    const lock = await acquireFileRunLock({ directory, since: '2026-01-01T00:00:00.000Z' });
    expect(holderOf(directory)).toMatchObject({
      pid: process.pid,
      host: hostname(),
      since: '2026-01-01T00:00:00.000Z',
    });
    const error = await acquireFileRunLock({ directory, since: 'later' }).catch((caught: unknown) => caught);
    expect(RunLockedError.isInstance(error)).toBe(true);
    expect((error as RunLockedError).holder).toEqual({
      pid: process.pid,
      host: hostname(),
      since: '2026-01-01T00:00:00.000Z',
    });
    expect((error as Error).message).toBe(
      `Run ${directory} is being executed by process ${process.pid} on host ${hostname()} since 2026-01-01T00:00:00.000Z. Wait for it to finish or stop it; a lock left by a killed process is taken over automatically.`,
    );
    await lock.release();
    expect(existsSync(join(directory, RUN_LOCK_FILE))).toBe(false);
    expect(existsSync(join(directory, RUN_LOCK_DIRECTORY))).toBe(false);
    const again = await acquireFileRunLock({ directory, since: 'later' });
    await again.release();
  });

  it('refreshes the lock while it is held (every 2 s), so that another host never finds it stale', {
    timeout: 120_000,
  }, async () => {
    const directory = tempDir();
    const lock = await acquireFileRunLock({ directory, since: 's' });
    const mtime = () => statSync(join(directory, RUN_LOCK_DIRECTORY)).mtimeMs;
    const taken = mtime();
    // Nothing but the holder's refresh touches the lock directory; a loaded machine may fire the timer late.
    await vi.waitFor(() => expect(mtime()).toBeGreaterThan(taken), { timeout: 90_000, interval: 200 });
    await lock.release();
    expect(existsSync(join(directory, RUN_LOCK_DIRECTORY))).toBe(false);
  });

  it('records process groups in the holder record', async () => {
    const store = createFileRunStore({ logsRoot: tempDir() });
    const lock = await store.acquireLock({ since: 's' });
    await lock.setProcessGroups([4242, 4343]);
    expect(await store.readLock()).toEqual({
      pid: process.pid,
      host: hostname(),
      since: 's',
      process_groups: [4242, 4343],
    });
    expect(lock.holder.process_groups).toEqual([4242, 4343]);
    await lock.release();
    expect(await store.readLock()).toBeUndefined();
  });

  it('takes over the lock of another host only once it has not been refreshed for staleMs', async () => {
    const directory = tempDir();
    const lock = await acquireFileRunLock({ directory, since: 's' });
    const record = JSON.parse(readFileSync(join(directory, RUN_LOCK_FILE), 'utf8'));
    // Pretend the holder is a process on another machine that stopped refreshing the lock.
    await lock.release();
    const taken = await acquireFileRunLock({ directory, since: 's' });
    const inode = holderOf(directory) as unknown as { lock_inode: string };
    writeFileSync(
      join(directory, RUN_LOCK_FILE),
      JSON.stringify({ ...record, host: 'elsewhere', pid: 1, lock_inode: inode.lock_inode }),
    );
    await expect(acquireFileRunLock({ directory, since: 'x', staleMs: 60_000 })).rejects.toThrow(
      /by process 1 on host elsewhere since s/,
    );
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(directory, RUN_LOCK_DIRECTORY), old, old);
    const takeover = await acquireFileRunLock({ directory, since: 'x', staleMs: 60_000 });
    expect(holderOf(directory)).toMatchObject({ pid: process.pid, since: 'x' });
    await takeover.release();
    await taken.release().catch(() => undefined);
  });

  it('lets exactly one of two concurrent resumes of one run proceed', { timeout: 120_000 }, async () => {
    const logsRoot = await killedRun();
    // Each stage takes 2 s, so the winner still holds the lock when the other process (whose start-up a loaded
    // machine may delay by seconds) asks for it.
    const both = await Promise.all([
      startRunner('resume', logsRoot, { HOLD_MS: '2000' }).finished,
      startRunner('resume', logsRoot, { HOLD_MS: '2000' }).finished,
    ]);
    const outputs = both.map((finished) => finished.output);
    expect(outputs.filter((output) => output.status === 'success')).toHaveLength(1);
    const refused = outputs.filter((output) => output.error === 'RUN_LOCKED');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.message).toMatch(
      new RegExp(`being executed by process \\d+ on host ${hostname()} since `),
    );
    expect(existsSync(join(logsRoot, RUN_LOCK_FILE))).toBe(false);
  });

  it('takes over after kill -9 of the holder and ends the process groups it recorded', {
    timeout: 120_000,
  }, async () => {
    const logsRoot = await killedRun();
    const holder = startRunner('resume', logsRoot, { HOLD_MS: '60000' });
    await waitFor(() => existsSync(join(logsRoot, RUN_LOCK_FILE)), 'the first resume to take the lock');
    // A stage command the holder left running, in its own process group, recorded in the holder record.
    const orphan: ChildProcess = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const orphanExit = new Promise<NodeJS.Signals | null>((resolve) =>
      orphan.on('exit', (_code, signal) => resolve(signal)),
    );
    writeFileSync(
      join(logsRoot, RUN_LOCK_FILE),
      JSON.stringify({
        ...JSON.parse(readFileSync(join(logsRoot, RUN_LOCK_FILE), 'utf8')),
        process_groups: [orphan.pid],
      }),
    );
    holder.child.kill('SIGKILL');
    expect((await holder.finished).signal).toBe('SIGKILL');

    const next = await startRunner('resume', logsRoot).finished;
    expect(next.output.status).toBe('success');
    expect(await orphanExit).toBe('SIGKILL');
    expect(existsSync(join(logsRoot, RUN_LOCK_DIRECTORY))).toBe(false);
  });

  it('refuses a run or resume in the same process while the run is locked, and releases the lock at the end', async () => {
    const logsRoot = await killedRun();
    const graph = createTestGraph({ edges: ['start -> exit'] });
    const registry = new HandlerRegistry({
      defaultHandler: { execute: async () => ({ status: 'success' }) },
    });
    const lock = await createFileRunStore({ logsRoot }).acquireLock({ since: 'now' });
    for (const attempt of [resumePipeline, runPipeline]) {
      const error = await attempt({ graph, registry, logsRoot }).catch((caught: unknown) => caught);
      expect(RunLockedError.isInstance(error)).toBe(true);
    }
    await lock.release();
    const fresh = join(tempDir(), 'fresh');
    expect((await runPipeline({ graph, registry, logsRoot: fresh })).status).toBe('success');
    expect(existsSync(join(fresh, RUN_LOCK_DIRECTORY))).toBe(false);
    expect(existsSync(join(fresh, RUN_LOCK_FILE))).toBe(false);
  });
  it('mirrors the process groups a stage records into the holder record while it runs', async () => {
    const logsRoot = join(tempDir(), 'run');
    const seen: (number[] | undefined)[] = [];
    // The holder record is written asynchronously: wait until it says what the stage recorded.
    const groups = () => JSON.stringify(holderOf(logsRoot).process_groups);
    const registry = new HandlerRegistry({
      defaultHandler: {
        execute: async ({ runtime }) => {
          const forget = runtime.recordProcessGroup?.(4242);
          await waitFor(() => groups() === '[4242]', 'the holder record to list the group');
          seen.push(holderOf(logsRoot).process_groups);
          forget?.();
          await waitFor(() => groups() === '[]', 'the holder record to forget the group');
          seen.push(holderOf(logsRoot).process_groups);
          return { status: 'success' };
        },
      },
    });
    const result = await runPipeline({
      graph: createTestGraph({ edges: ['start -> work -> exit'] }),
      registry,
      logsRoot,
    });
    expect(result.status).toBe('success');
    expect(seen.slice(0, 2)).toEqual([[4242], []]);
    expect(existsSync(join(logsRoot, RUN_LOCK_FILE))).toBe(false);
  });
});
