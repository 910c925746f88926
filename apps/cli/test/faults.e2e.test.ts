import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { wholeJsonLines } from '@attractor/engine/test';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { attractor, BIN, childEnv, temporaryDirectory } from './helpers/cli.js';

const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir]);
});

/** A real, tiny file system (tmpfs), or undefined when this machine does not let us mount one. */
function smallFileSystem(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  mounted.push(dir);
  return dir;
}

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyFile(path) : [path];
  });
}

const canMount = process.getuid?.() === 0;

describe('file-system faults end with one line, never a stack or a torn file (issue 20 §5)', () => {
  it.skipIf(!canMount)(
    'disk full mid-run: names the path and the cause, prints the resume command, leaves no empty file',
    async () => {
      const dir = await temporaryDirectory();
      const disk = smallFileSystem(
        await mkdir(join(dir, 'disk'), { recursive: true }).then(() => join(dir, 'disk')),
        '256k',
      );
      if (disk === undefined) return;
      await writeFile(
        join(dir, 'fill.dot'),
        `digraph fill {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        fill [shape=parallelogram, tool_command="head -c 10000000 /dev/zero > \\"$ATTRACTOR_STAGE_DIR/filler\\"; echo filled"]
        start -> fill -> exit
      }`,
      );
      const result = await attractor(['run', 'fill.dot', '--simulate', '--logs-dir', join(disk, 'run')], {
        cwd: dir,
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr, `stdout: ${result.stdout}`).toMatch(
        /error: The run stopped: cannot write \S+: no space left on the device \(ENOSPC\)\. Free some space, then resume with: attractor resume \S+/,
      );
      for (const path of everyFile(join(disk, 'run'))) {
        if (path.endsWith('filler')) continue;
        const text = readFileSync(path, 'utf8');
        // The command's live output files are appended to as it runs: one may stay empty when the disk filled
        // before its first line (the stage runs again on resume). Every other file is whole.
        if (/\/(stdout|stderr)\.txt$/.test(path)) continue;
        expect(text.length, `${path} is empty`).toBeGreaterThan(0);
        if (path.endsWith('.json')) expect(() => JSON.parse(text), path).not.toThrow();
      }
    },
  );

  it('inspect and resume on an unreadable run directory name the file and the cause', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'ok.dot'),
      'digraph ok { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    );
    expect(
      (await attractor(['run', 'ok.dot', '--simulate', '--logs-dir', 'run'], { cwd: dir })).exitCode,
    ).toBe(0);
    chmodSync(join(dir, 'run', 'manifest.json'), 0o000);
    // Root reads anything: run the checks as nobody then (the directory must be reachable for it).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chmodSync(dir, 0o755);
    const as = (args: string[]) =>
      execa('node', [BIN, ...args], {
        cwd: dir,
        env: childEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
    for (const command of [
      ['inspect', 'run'],
      ['resume', 'run'],
    ]) {
      const result = await as(command);
      expect(result.exitCode, command.join(' ')).toBe(2);
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).toMatch(
        /error: Cannot read \S*run\/manifest\.json: permission denied \(EACCES\)/,
      );
    }
  });

  it.skipIf(!canMount)(
    'disk full at 8 fill levels: checkpoints.jsonl never keeps a torn line, and a resume after freeing space appends whole lines (issue 34 §15)',
    { timeout: 600_000 },
    async () => {
      const dir = await temporaryDirectory();
      const disk = smallFileSystem(
        await mkdir(join(dir, 'disk'), { recursive: true }).then(() => join(dir, 'disk')),
        '1m',
      );
      if (disk === undefined) return;
      // Twelve stages with a 16 KB context: every checkpoint and history line is bigger than a page, so the disk often
      // fills in the middle of one of them.
      const stages = Array.from({ length: 12 }, (_, index) => `s${index}`);
      await writeFile(
        join(dir, 'long.dot'),
        `digraph long {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        ${stages.map((id) => `${id} [shape=parallelogram, tool_command="echo ${id}"]`).join('\n        ')}
        start -> ${stages.join(' -> ')} -> exit
      }`,
      );
      const big = `big=${'x'.repeat(16 * 1024)}`;
      const tornAt: string[] = [];
      for (let level = 0; level < 8; level++) {
        execFileSync('sh', ['-c', `rm -rf "${disk}"/*`]);
        const run = join(disk, `run-${level}`);
        // A run needs about 450 KB: 600 KB to 985 KB of filler, off page boundaries, stop it at a different write each time.
        await writeFile(join(disk, 'filler'), Buffer.alloc(600 * 1024 + level * 55 * 1024 + level * 700));
        const stopped = await attractor(['run', 'long.dot', '--simulate', '--set', big, '--logs-dir', run], {
          cwd: dir,
        });
        const history = join(run, 'checkpoints.jsonl');
        const where = `level ${level}: exit ${stopped.exitCode}: ${stopped.stderr.slice(-400)}`;
        expect(stopped.stderr, where).not.toContain('unexpected error');
        const before = readFileSync(history, 'utf8');
        if (!wholeJsonLines(before)) tornAt.push(`level ${level} (stopped)`);
        execFileSync('rm', ['-f', join(disk, 'filler')]);
        const resumed = await attractor(['resume', run, '--simulate'], { cwd: dir });
        expect(resumed.exitCode, `${where}\nresume: ${resumed.stderr.slice(-400)}`).toBe(0);
        const after = readFileSync(history, 'utf8');
        if (!wholeJsonLines(after)) tornAt.push(`level ${level} (resumed)`);
        // The resume appended: it read the history (fork starts from it) and kept every whole line.
        expect(after.startsWith(before.slice(0, before.lastIndexOf('\n') + 1)), where).toBe(true);
      }
      expect(tornAt).toEqual([]);
    },
  );
});
