/**
 * Whether a process still runs, for tests that check what a killed or interrupted CLI left behind.
 */
import { readFileSync } from 'node:fs';

/** Whether the process runs; one that is gone or a zombie (the sandbox's init may not reap it) counts as ended. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
