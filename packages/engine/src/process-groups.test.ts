import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { killProcessGroup, trackProcessGroup } from './process-groups.js';

// The sandbox does not reap orphans: a killed process can linger as a zombie, so "gone" means absent or state Z.
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('killProcessGroup (docs/architecture.md "Tool nodes")', () => {
  it('kills the whole group, grandchildren included', async () => {
    const leader = spawn('/bin/bash', ['-c', 'sleep 30 & echo $!; wait'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const grandchild = await new Promise<number>((resolve) =>
      leader.stdout.once('data', (data) => resolve(Number(String(data).trim()))),
    );
    const untrack = trackProcessGroup(leader.pid!);
    const exited = new Promise((resolve) => leader.once('exit', resolve));
    killProcessGroup(leader.pid!, 'SIGKILL');
    await exited;
    untrack();
    await expect.poll(() => isAlive(grandchild)).toBe(false);
  });

  it('ignores a group that is already gone', () => {
    expect(() => killProcessGroup(2 ** 22 + 12345, 'SIGTERM')).not.toThrow();
  });
});
