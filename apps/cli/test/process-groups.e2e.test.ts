import { readFileSync } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

// The first visit starts a grandchild that would run for a minute and waits for it; a later visit finishes at once.
const PIPELINE = `digraph slow {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, tool_command="if [ -f again.marker ]; then echo second visit; else touch again.marker; sleep 60 & echo $! > grandchild.pid; wait; fi"]
  start -> work -> exit
}`;

async function waitForFile(path: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await access(path);
      if ((await readFile(path, 'utf8')).trim() !== '') return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A zombie (the sandbox's init does not reap) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitUntilDead(pid: number, timeoutMs = 60_000): Promise<boolean> {
  for (let waited = 0; waited < timeoutMs && isAlive(pid); waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}

async function startSlowRun(): Promise<{
  cwd: string;
  child: ReturnType<typeof attractor>;
  grandchild: number;
}> {
  const cwd = await temporaryDirectory();
  await writeFile(join(cwd, 'slow.dot'), PIPELINE);
  const child = attractor(['run', 'slow.dot', '--simulate', '--logs-dir', 'run', '-v'], { cwd });
  await waitForFile(join(cwd, 'grandchild.pid'));
  const grandchild = Number((await readFile(join(cwd, 'grandchild.pid'), 'utf8')).trim());
  return { cwd, child, grandchild };
}

describe('tool processes never outlive their runner (issue 20 §4)', () => {
  it('SIGHUP (a closed terminal) stops the run like SIGTERM and ends the tool process tree', async () => {
    const { child, grandchild } = await startSlowRun();
    expect(isAlive(grandchild)).toBe(true);
    child.kill('SIGHUP');
    const interrupted = await child;
    expect(interrupted.exitCode).toBe(130);
    expect(interrupted.stdout).toContain('SIGHUP: stopping the running stage');
    expect(await waitUntilDead(grandchild)).toBe(true);
  });

  it('a resume after kill -9 ends the process groups the dead runner left before it runs the stage again', async () => {
    const { cwd, child, grandchild } = await startSlowRun();
    // The runner records the group right after the spawn, so the command may get ahead of it.
    await waitForFile(join(cwd, 'run', 'process-groups.json'));
    const recorded = JSON.parse(await readFile(join(cwd, 'run', 'process-groups.json'), 'utf8')) as {
      runner_pid: number;
      groups: number[];
    };
    expect(recorded.groups).toHaveLength(1);
    child.kill('SIGKILL');
    await child;
    // Nothing ran the dead runner's exit hooks: the tree is still there.
    expect(isAlive(grandchild)).toBe(true);

    const resumed = await attractor(['resume', 'run', '-v'], { cwd });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain(
      `ended 1 process group(s) left running by the previous runner (${recorded.groups[0]}) before running "work" again`,
    );
    expect(isAlive(grandchild)).toBe(false);
    expect(readFileSync(join(cwd, 'run', 'work', 'stdout.txt'), 'utf8')).toBe('second visit\n');
  });
});
