import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('./fixtures/crash-runner.mjs', import.meta.url));

/** How a run of `fixtures/crash-runner.mjs` ended. */
export interface RunnerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
}

/**
 * Starts `fixtures/crash-runner.mjs` (`run` or `resume` of the crash pipeline in `logsRoot`, with real files).
 * `finished` rejects when the runner fails other than by a signal or a refusal (exit code 3).
 */
export function startCrashRunner(
  mode: 'run' | 'resume',
  logsRoot: string,
  env: Record<string, string> = {},
): { child: ChildProcess; finished: Promise<RunnerExit> } {
  const child = spawn(process.execPath, [runner, mode, logsRoot], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const finished = new Promise<RunnerExit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === null && code !== 0 && code !== 3)
        reject(new Error(`runner exited with ${code}: ${stderr}`));
      else resolve({ code, signal, stdout });
    });
  });
  return { child, finished };
}
