import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBubblewrap, createBubblewrapSandbox } from './command-sandbox.js';
import { SandboxUnavailableError } from './errors/sandbox-unavailable-error.js';

/** Bubblewrap is on this machine; CI installs it (`.ci/system-deps`) and never skips. */
const withBwrap = spawnSync('bwrap', ['--version']).status === 0 || process.env.CI === 'true';
if (!withBwrap)
  console.log('bubblewrap (bwrap) is not installed: the real-sandbox test of the engine is skipped');

describe('the Bubblewrap sandbox', () => {
  it('wraps a command: the system read-only, a private /tmp, cwd and the writable paths bound, no network unless asked', () => {
    const sandbox = createBubblewrapSandbox({ bwrapPath: '/usr/bin/bwrap' });
    const command = {
      file: '/bin/sh',
      args: ['-c', 'make'],
      cwd: '/work',
      writable: ['/run/stage', '/work'],
    };
    expect(sandbox.wrap({ ...command, network: false })).toEqual({
      file: '/usr/bin/bwrap',
      args: [
        ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
        ...['--bind', '/work', '/work', '--bind-try', '/run/stage', '/run/stage', '--unshare-net'],
        ...['--die-with-parent', '--chdir', '/work', '--', '/bin/sh', '-c', 'make'],
      ],
    });
    expect(sandbox.wrap({ ...command, network: true }).args).not.toContain('--unshare-net');
  });

  it.runIf(withBwrap)('runs the command with only its writable places writable (real bwrap)', async () => {
    await checkBubblewrap();
    const work = mkdtempSync(join(tmpdir(), 'sandbox-work-'));
    const outside = mkdtempSync('/var/tmp/sandbox-outside-');
    try {
      const { file, args } = createBubblewrapSandbox().wrap({
        file: '/bin/sh',
        args: ['-c', `echo in > in.txt; echo out > ${outside}/out.txt 2>/dev/null; echo $?`],
        cwd: work,
        writable: [],
        network: false,
      });
      expect(execFileSync(file, args, { encoding: 'utf8', stdio: 'pipe' }).trim()).not.toBe('0');
      expect(readFileSync(join(work, 'in.txt'), 'utf8')).toBe('in\n');
      expect(() => readFileSync(join(outside, 'out.txt'))).toThrow();
    } finally {
      rmSync(work, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses a bwrap that is not installed, saying how to install it', async () => {
    const error = await checkBubblewrap({ bwrapPath: '/nonexistent/bwrap' }).catch(
      (caught: unknown) => caught,
    );
    expect(SandboxUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'SANDBOX_UNAVAILABLE',
      reason: 'missing',
      bwrapPath: '/nonexistent/bwrap',
    });
    expect((error as Error).message).toContain('apt-get install bubblewrap');
  });

  it('refuses a program that is not a working bwrap, with what it said', async () => {
    const error = await checkBubblewrap({ bwrapPath: '/bin/false' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'failed' });
    expect((error as Error).message).toContain('/bin/false failed (exit code 1)');
  });
});
