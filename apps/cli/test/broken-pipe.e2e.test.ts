import { spawn } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, PIPELINES, temporaryDirectory } from './helpers/cli.js';

interface ClosedPipeResult {
  readonly exitCode: number | null;
  /** stderr, or '' when stderr was closed too. */
  readonly stderr: string;
}

/**
 * Runs `attractor <args>` with stdout (and with `closeStderr`, stderr) connected to a real pipe whose reading end
 * this process closes at once, before the command writes anything: every write of the command meets a broken
 * pipe (EPIPE), as with `attractor ... | head -0`.
 */
function attractorWithClosedOutput(
  args: readonly string[],
  options: { readonly cwd: string; readonly closeStderr?: boolean },
): Promise<ClosedPipeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', [BIN, ...args], {
      cwd: options.cwd,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    if (options.closeStderr === true) child.stderr.destroy();
    else child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stderr }));
  });
}

const TOOLS_PIPELINE = (lastCommand: string): string =>
  `digraph Tools {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  first [shape=parallelogram, tool_command="echo one"]\n  second [shape=parallelogram, tool_command="${lastCommand}"]\n  start -> first -> second -> exit\n}\n`;

async function completedNodes(runDirectory: string): Promise<string[]> {
  const checkpoint = JSON.parse(await readFile(join(runDirectory, 'checkpoint.json'), 'utf8')) as {
    completed_nodes: string[];
  };
  return checkpoint.completed_nodes;
}

describe('attractor with its output closed early (a broken pipe)', () => {
  it('validate prints no stack trace and exits with the code it would have had', async () => {
    const cwd = await temporaryDirectory();
    const files = ['build-and-test.dot', 'release-approval.dot'].map((name) => join(PIPELINES, name));
    const result = await attractorWithClosedOutput(['validate', ...files], { cwd });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('run goes on to completion: the last tool runs, the checkpoint is complete, exit code 0', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'tools.dot'), TOOLS_PIPELINE('touch done.txt'));
    const result = await attractorWithClosedOutput(['run', 'tools.dot', '--simulate', '--logs-dir', 'run'], {
      cwd,
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.exitCode).toBe(0);
    await access(join(cwd, 'done.txt'));
    expect(await completedNodes(join(cwd, 'run'))).toEqual(['start', 'first', 'second', 'exit']);
  });

  it('run --dry-run completes and run keeps exit code 1 for a failed pipeline', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'tools.dot'), TOOLS_PIPELINE('exit 3'));
    const dryRun = await attractorWithClosedOutput(['run', 'tools.dot', '--dry-run', '--logs-dir', 'dry'], {
      cwd,
    });
    expect(dryRun.stderr).toBe('');
    expect(dryRun.exitCode).toBe(0);
    expect(await completedNodes(join(cwd, 'dry'))).toEqual(['start', 'first', 'second', 'exit']);
    const failed = await attractorWithClosedOutput(
      ['run', 'tools.dot', '--simulate', '--logs-dir', 'failed'],
      {
        cwd,
      },
    );
    expect(failed.stderr).not.toContain('EPIPE');
    expect(failed.exitCode).toBe(1);
  });

  it('run --json with stdout and stderr closed completes with exit code 0', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'tools.dot'), TOOLS_PIPELINE('touch done.txt'));
    const result = await attractorWithClosedOutput(
      ['run', 'tools.dot', '--simulate', '--json', '--logs-dir', 'run'],
      { cwd, closeStderr: true },
    );
    expect(result.exitCode).toBe(0);
    await access(join(cwd, 'done.txt'));
    expect(await completedNodes(join(cwd, 'run'))).toEqual(['start', 'first', 'second', 'exit']);
  });
});
