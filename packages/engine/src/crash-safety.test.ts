import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunnerExit, startCrashRunner } from '../test/crash-runner.js';
import { tempDir } from '../test/helpers.js';

function spawnRunner(
  mode: 'run' | 'resume',
  logsRoot: string,
  env: Record<string, string> = {},
  killAfterMs?: number,
): Promise<RunnerExit> {
  const { child, finished } = startCrashRunner(mode, logsRoot, env);
  if (killAfterMs === undefined) return finished;
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return finished.finally(() => clearTimeout(timer));
}

function parseResult(stdout: string): {
  status: string;
  completedNodes: string[];
  context: Record<string, unknown>;
} {
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** Every checkpoint file on disk parses as JSON (the live one and, after a crash between unlink and rename, the temp file). */
function assertCheckpointsParse(logsRoot: string): boolean {
  let found = false;
  for (const name of ['checkpoint.json', '.checkpoint.json.tmp']) {
    const path = join(logsRoot, name);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    if (name === 'checkpoint.json') {
      expect(() => JSON.parse(text), `${path} parses`).not.toThrow();
      found = true;
    }
  }
  return found || existsSync(join(logsRoot, '.checkpoint.json.tmp'));
}

// 14 kills from inside event callbacks (between nodes: after stage.completed / checkpoint.saved; at the start of a
// node: after stage.started), 3 inside handlers, 3 from the parent on a timer.
const KILL_POINTS: { name: string; env?: Record<string, string>; afterMs?: number }[] = [
  ...[1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 17, 20, 23, 26].map((event) => ({
    name: `event ${event}`,
    env: { KILL_AT_EVENT: String(event) },
  })),
  ...['plan:1', 'work:2', 'check:3'].map((spot) => ({
    name: `handler ${spot}`,
    env: { KILL_IN_HANDLER: spot },
  })),
  ...[15, 40, 70].map((ms) => ({ name: `timer ${ms}ms`, afterMs: ms })),
];

describe('crash safety (issue 4): SIGKILL at 20 points, then resume', () => {
  it('resumes every interrupted run to the same path and context as an uninterrupted run', {
    timeout: 600_000,
  }, async () => {
    const reference = parseResult((await spawnRunner('run', join(tempDir(), 'reference'))).stdout);
    expect(reference.status).toBe('success');
    expect(reference.completedNodes).toEqual([
      'start',
      'plan',
      'work',
      'check',
      'work',
      'check',
      'work',
      'check',
      'review',
      'exit',
    ]);
    expect(KILL_POINTS).toHaveLength(20);

    let killed = 0;
    for (const point of KILL_POINTS) {
      const logsRoot = join(tempDir(), 'run');
      const first = await spawnRunner('run', logsRoot, point.env ?? {}, point.afterMs);
      let final: ReturnType<typeof parseResult>;
      if (first.signal === 'SIGKILL') {
        killed += 1;
        const resumable = assertCheckpointsParse(logsRoot);
        const second = resumable ? await spawnRunner('resume', logsRoot) : await spawnRunner('run', logsRoot);
        final = parseResult(second.stdout);
      } else {
        final = parseResult(first.stdout);
      }
      expect(final.status, point.name).toBe('success');
      expect(final.completedNodes, point.name).toEqual(reference.completedNodes);
      expect(final.context, point.name).toEqual(reference.context);
      assertCheckpointsParse(logsRoot);
      const lines = readFileSync(join(logsRoot, 'events.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const parsed = lines.filter((line) => {
        try {
          JSON.parse(line);
          return true;
        } catch {
          return false;
        }
      });
      expect(lines.length - parsed.length, `${point.name}: at most one torn event line`).toBeLessThanOrEqual(
        1,
      );
    }
    expect(killed).toBeGreaterThanOrEqual(18);
  });
});
