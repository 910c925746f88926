/**
 * Ends a worker's stage commands when the worker dies (issue 18 "A stage's tool process never keeps running under a
 * dead worker"). Tool commands run in process groups of their own, so a `kill -9` of the worker would leave them
 * running. The guard is a tiny detached Node process that the worker tells, over a pipe, which process groups are
 * running; when the pipe closes (the worker died, however) it ends those groups: SIGTERM, then SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** The guard's program, run with `node -e` (no file to find next to a bundled CLI). */
const GUARD_PROGRAM = `
const groups = new Map();
let buffer = '';
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) >= 0) {
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const ids = (space < 0 ? '' : line.slice(space + 1)).split(',').filter(Boolean).map(Number);
    if (ids.length > 0) groups.set(key, ids); else groups.delete(key);
  }
});
const signal = (name) => { for (const ids of groups.values()) for (const id of ids) { try { process.kill(-id, name); } catch {} } };
process.stdin.on('close', () => {
  if (groups.size === 0) process.exit(0);
  signal('SIGTERM');
  setTimeout(() => { signal('SIGKILL'); process.exit(0); }, 1000);
});
`;

/** A running guard. */
export interface ProcessGroupGuard {
  /** The guard's process id. */
  readonly pid: number | undefined;
  /** Records the process groups now running for `key` (a run); an empty list forgets them. */
  set(key: string, processGroupIds: readonly number[]): void;
  /** Closes the pipe: the guard ends any group still recorded, then exits. */
  close(): void;
}

/** Starts the guard process (detached, in its own process group, holding no reference on this process's event loop). */
export function startProcessGroupGuard(): ProcessGroupGuard {
  const child: ChildProcess = spawn(process.execPath, ['-e', GUARD_PROGRAM], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    pid: child.pid,
    set(key, processGroupIds) {
      child.stdin?.write(`${key.replaceAll(/\s/g, '_')} ${processGroupIds.join(',')}\n`);
    },
    close() {
      child.stdin?.end();
    },
  };
}
