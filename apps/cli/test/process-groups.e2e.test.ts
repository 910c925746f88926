import { existsSync, readFileSync } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';
import { isAlive } from './helpers/process-alive.js';

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

  it('the command runs only once its group is recorded: a runner killed at its first instant is ended by the resume, never run beside it (issue 34 §10)', async () => {
    const cwd = await temporaryDirectory();
    // The command's first act, on its first visit, is to kill its runner (the CLI) with shell builtins: the earliest
    // moment a kill can come. A second copy notes whether the first one still runs.
    await writeFile(
      join(cwd, 'copy.sh'),
      `if [ ! -f killed.marker ]; then
  touch killed.marker
  echo $$ > first.pid
  sleep 30
  echo first-finished >> copies.log
else
  first=$(cat first.pid)
  state=$(sed 's/.*) //' "/proc/$first/stat" 2>/dev/null | cut -c1)
  if [ -n "$state" ] && [ "$state" != Z ]; then echo "overlap with $first" >> copies.log; fi
  echo second >> copies.log
fi
`,
    );
    await writeFile(
      join(cwd, 'first.dot'),
      `digraph first {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, tool_command="[ -f killed.marker ] || kill -9 $PPID; sh copy.sh"]
  start -> work -> exit
}`,
    );
    const killed = await attractor(['run', 'first.dot', '--simulate', '--logs-dir', 'run', '-v'], { cwd });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    await waitForFile(join(cwd, 'first.pid'));
    const first = Number((await readFile(join(cwd, 'first.pid'), 'utf8')).trim());
    try {
      expect(isAlive(first)).toBe(true);
      const recorded = JSON.parse(await readFile(join(cwd, 'run', 'process-groups.json'), 'utf8')) as {
        groups: number[];
      };
      expect(recorded.groups).toHaveLength(1);

      const resumed = await attractor(['resume', 'run', '-v'], { cwd });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain(
        `ended 1 process group(s) left running by the previous runner (${recorded.groups[0]}) before running "work" again`,
      );
      expect(isAlive(first)).toBe(false);
      expect(await readFile(join(cwd, 'copies.log'), 'utf8')).toBe('second\n');
    } finally {
      // Its whole group (the shell, copy.sh, sleep), when it outlived the test.
      const stat = existsSync(`/proc/${first}/stat`) ? readFileSync(`/proc/${first}/stat`, 'utf8') : '';
      const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      try {
        if (group > 1) process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
});
