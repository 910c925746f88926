import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { systemClock } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { runShellCommand } from './run-shell-command.js';

/** Whether a process is gone (exited, or a zombie nobody reaped: PID 1 here does not reap orphans). */
async function isDead(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined || stat.split(') ')[1]?.startsWith('Z') === true;
}

describe('runShellCommand (coding-agent-loop-spec §4.2, §5.4)', () => {
  it('returns interleaved output, the exit code and the duration', async () => {
    const result = await runShellCommand({
      command: 'echo out; echo err 1>&2; exit 3',
      cwd: tmpdir(),
      env: {},
      timeoutMs: 10_000,
      clock: systemClock,
    });
    expect(result.output).toBe('out\nerr\n');
    expect(result.exitCode).toBe(3);
    expect(result.timedOut).toBe(false);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('passes only the given environment and stdin', async () => {
    const result = await runShellCommand({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      command: 'echo "${VISIBLE:-none} ${OPENAI_API_KEY:-none}"; cat',
      cwd: tmpdir(),
      env: { VISIBLE: 'yes' },
      input: '{"a":1}',
      timeoutMs: 10_000,
      clock: systemClock,
    });
    expect(result.output).toBe('yes none\n{"a":1}');
  });

  it('kills the whole process group on timeout and returns the partial output', async () => {
    const result = await runShellCommand({
      // A group that outlived the timeout would hold the test until its own limit: the sleep is far longer.
      command: 'sleep 600 & echo "child $!"; wait',
      cwd: tmpdir(),
      env: {},
      timeoutMs: 3_000,
      killGraceMs: 500,
      clock: systemClock,
    });
    expect(result.timedOut).toBe(true);
    const childPid = Number(/child (\d+)/.exec(result.output)?.[1]);
    expect(childPid).toBeGreaterThan(0);
    expect(await isDead(childPid)).toBe(true);
  });

  it('kills the process group when aborted', async () => {
    const controller = new AbortController();
    const running = runShellCommand({
      command: 'echo started; sleep 600',
      cwd: tmpdir(),
      env: {},
      timeoutMs: 60_000,
      abortSignal: controller.signal,
      clock: systemClock,
    });
    setTimeout(() => controller.abort(), 500);
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
  });
});
