/**
 * The first Ctrl-C ends the CLI with exit code 130 at any moment of its life (issue 34 §6/§7): while it loads, while a
 * run executes, after. A lock library loads signal-exit@3, whose SIGINT listener used to make the CLI's early handler
 * stand aside, so a Ctrl-C in the first seconds was ignored and the run went on to the end.
 *
 * Twenty interrupts, sent from 0 to 5 s after start, under two CPU-burning processes (a loaded CI machine loads slowly,
 * which widens the early moments). Nothing here asserts a duration: each trial waits for the CLI to exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, FIXTURES, temporaryDirectory } from './helpers/cli.js';
import { isAlive } from './helpers/process-alive.js';

const PIPELINE = `digraph slow {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [shape=parallelogram, tool_command="echo $$ > tool.pid; sleep 30; touch finished"]
  start -> work -> exit
}`;

const PROBE = join(FIXTURES, 'interrupt-probe', 'probe.mjs');
const POINTS = Array.from({ length: 20 }, (_, index) => Math.round((index * 5000) / 19));
/** Trials run this many at a time. */
const AT_ONCE = 4;

interface Trial {
  readonly afterMs: number;
  /** Whether JavaScript (the probe) listened for SIGINT when it was sent. */
  readonly listening: boolean;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  readonly probeAnswered: boolean;
  readonly finished: boolean;
  readonly toolPid: number | undefined;
  readonly stderr: string;
}

async function trial(afterMs: number): Promise<Trial> {
  const cwd = await temporaryDirectory('attractor-interrupt-');
  await writeFile(join(cwd, 'slow.dot'), PIPELINE);
  const probeFile = join(cwd, 'probe');
  const child = execa(
    'node',
    ['--import', PROBE, BIN, 'run', 'slow.dot', '--simulate', '--logs-dir', 'run'],
    {
      cwd,
      env: childEnv({ ATTRACTOR_PROBE_FILE: probeFile }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    },
  );
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  const listening = existsSync(probeFile);
  child.kill('SIGINT');
  const result = await child;
  const toolPidFile = join(cwd, 'tool.pid');
  return {
    afterMs,
    listening,
    exitCode: result.exitCode,
    signal: result.signal,
    probeAnswered: existsSync(`${probeFile}.answered`),
    finished: existsSync(join(cwd, 'finished')),
    toolPid: existsSync(toolPidFile) ? Number(readFileSync(toolPidFile, 'utf8').trim()) : undefined,
    stderr: result.stderr,
  };
}

describe('Ctrl-C at any moment (issue 34 §6)', () => {
  const burners: ChildProcess[] = [];
  beforeAll(() => {
    for (let index = 0; index < 2; index++) {
      burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
  });
  afterAll(() => {
    for (const burner of burners) burner.kill('SIGKILL');
  });

  it('exits 130 on the first SIGINT sent 0 to 5 s after start, under CPU load, and the run does not go on', async () => {
    const trials: Trial[] = [];
    for (let start = 0; start < POINTS.length; start += AT_ONCE) {
      trials.push(...(await Promise.all(POINTS.slice(start, start + AT_ONCE).map(trial))));
    }
    for (const outcome of trials) {
      const where = `SIGINT ${outcome.afterMs} ms after start: ${JSON.stringify({ ...outcome, stderr: outcome.stderr.slice(-600) })}`;
      // Before any JavaScript listened, Node's default applies: the process ends by the signal (a shell reports 130).
      if (outcome.signal !== undefined) expect(outcome.listening, where).toBe(false);
      else expect(outcome.exitCode, where).toBe(130);
      expect(outcome.finished, where).toBe(false);
      // The stage's command (if it started) ended with the CLI.
      if (outcome.toolPid !== undefined) {
        const toolPid = outcome.toolPid;
        await expect.poll(() => isAlive(toolPid), { timeout: 30_000 }).toBe(false);
      }
    }
    // Most interrupts came while the CLI was loading or running, not before Node ran any JavaScript.
    expect(
      trials.filter((outcome) => outcome.exitCode === 130 && !outcome.probeAnswered).length,
    ).toBeGreaterThan(10);
  }, 600_000);
});
