import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { formatElapsed } from '../src/display/format-values.js';
import type { RunSummary } from '../src/inspect/summarize-run.js';
import { attractor, BIN, childEnv, FIXTURES, temporaryDirectory } from './helpers/cli.js';

const PIPELINE = join(FIXTURES, 'slow-middle.dot');
const SCRIPT = join(FIXTURES, 'slow-middle.simulate.json');

async function inspect(runDir: string, cwd: string): Promise<RunSummary> {
  const result = await attractor(['inspect', runDir, '--json'], { cwd });
  expect(result.exitCode).toBe(0);
  return JSON.parse(result.stdout) as RunSummary;
}

/** Resolves once `path` exists (the tool stage has started). */
async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await access(path);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('Ctrl-C and resume', () => {
  it('SIGINT aborts the running stage, keeps the checkpoint, prints the resume command and exits 130; resume completes the same route as an uninterrupted run', async () => {
    // Uninterrupted reference run: the marker exists, so the slow stage does not sleep.
    const reference = await temporaryDirectory();
    await writeFile(join(reference, 'started.marker'), '');
    const full = await attractor(['run', PIPELINE, '--simulate-script', SCRIPT, '--logs-dir', 'run'], {
      cwd: reference,
    });
    expect(full.exitCode).toBe(0);
    const expected = await inspect('run', reference);
    expect(expected.route).toEqual(['start', 'plan', 'slow', 'review', 'fix', 'review', 'exit']);

    const cwd = await temporaryDirectory();
    const child = attractor(['run', PIPELINE, '--simulate-script', SCRIPT, '--logs-dir', 'run'], { cwd });
    // The marker is the tool stage's own first step: once it exists, the stage is under way.
    await waitForFile(join(cwd, 'started.marker'), 60_000);
    child.kill('SIGINT');
    const interrupted = await child;
    expect(interrupted.exitCode).toBe(130);
    expect(interrupted.stdout).toContain('Ctrl-C: stopping the running stage');
    expect(interrupted.stdout).toMatch(/Interrupted after .*; the last checkpoint is kept\./);
    expect(interrupted.stdout).toContain('resume with:   attractor resume run');

    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      next_node: string;
      completed_nodes: string[];
    };
    expect(checkpoint.next_node).toBe('slow');
    expect(checkpoint.completed_nodes).toEqual(['start', 'plan']);
    const halfway = await inspect('run', cwd);
    expect(halfway.route).toEqual(['start', 'plan']);
    expect(halfway.stages.find((stage) => stage.nodeId === 'slow')?.state).not.toBe('success');

    // The printed command, word for word: the backend choice (--simulate-script) comes from the run directory.
    const resumed = await attractor(['resume', 'run'], { cwd });
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain('(resumed at slow)');
    const final = await inspect('run', cwd);
    expect(final.state).toBe('success');
    expect(final.route).toEqual(expected.route);
    // The summary tells this leg (5 stages from slow on) from the whole run (7 stages), whose time is inspect's.
    expect(resumed.stdout).toMatch(
      new RegExp(
        `✔ Pipeline succeeded in \\S+ \\(5 stages this time; whole run: 7 stages, ${formatElapsed(final.durationMs).replace('.', '\\.')}\\)\n`,
      ),
    );
  });

  it('two quick Ctrl-Cs still exit with 130 (never killed by the signal) and leave a resumable checkpoint', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'stubborn.dot'),
      `digraph Stubborn {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  work  [shape=parallelogram, tool_command="trap '' TERM INT; touch started.marker; while true; do sleep 0.2; done"]
  start -> work -> exit
}
`,
    );
    const child = attractor(['run', 'stubborn.dot', '--simulate', '--logs-dir', 'run'], { cwd });
    await waitForFile(join(cwd, 'started.marker'), 30_000);
    child.kill('SIGINT');
    child.kill('SIGINT');
    const result = await child;
    expect(result.signal).toBeUndefined();
    expect(result.exitCode).toBe(130);
    expect(`${result.stdout}${result.stderr}`).toContain('attractor resume run');
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      next_node: string;
    };
    expect(checkpoint.next_node).toBe('work');
  });

  it('the resume hint after Ctrl-C carries the --answer values no gate took yet, shell-quoted and without secrets; the printed command, pasted into a shell, finishes the run', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'gates.dot'),
      `digraph Gates {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  slow  [shape=parallelogram, tool_command="if [ -f started.marker ]; then echo again; else touch started.marker; sleep 30; fi"]
  ship  [shape=hexagon, label="Ship it?"]
  token [shape=hexagon, label="Deploy token?", human.input="text"]
  note  [shape=hexagon, label="Release note?", human.input="text", human.context_key="release_note"]
  start -> slow -> ship
  ship -> token [label="[S] Ship"]
  ship -> exit  [label="[H] Hold"]
  token -> note -> exit
}
`,
    );
    const secret = 'tok-0123456789abcdef';
    const env = { DEPLOY_TOKEN: secret };
    const child = attractor(
      [
        'run',
        'gates.dot',
        '--simulate',
        '--logs-dir',
        'run',
        '--answer',
        'S',
        '--answer',
        secret,
        '--answer',
        "it's done; ship it",
      ],
      { cwd, env },
    );
    await waitForFile(join(cwd, 'started.marker'), 60_000);
    child.kill('SIGINT');
    const interrupted = await child;
    expect(interrupted.exitCode).toBe(130);
    const hint = /resume with: {3}(.+)$/m.exec(interrupted.stdout)?.[1];
    // The secret answer is read from its variable again: the console never shows it.
    expect(hint).toBe(
      `attractor resume run --answer S --answer "$DEPLOY_TOKEN" --answer 'it'\\''s done; ship it'`,
    );
    expect(`${interrupted.stdout}${interrupted.stderr}`).not.toContain(secret);

    // The hint word for word, in a shell (`attractor` is the CLI under test); stdin is not a terminal, so a gate
    // without its answer would fail the run.
    const pasted = await execa('sh', ['-c', `attractor() { node '${BIN}' "$@"; }\n${hint}`], {
      cwd,
      env: childEnv(env),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    expect(pasted.stderr).toBe('');
    expect(pasted.exitCode).toBe(0);
    const final = await inspect('run', cwd);
    expect(final.route).toEqual(['start', 'slow', 'ship', 'token', 'note', 'exit']);
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(checkpoint.context.release_note).toBe("it's done; ship it");
  });

  it('refuses to resume a run that already succeeded (exit 2, says to pass --from)', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'started.marker'), '');
    expect((await attractor(['run', PIPELINE, '--simulate', '--logs-dir', 'done'], { cwd })).exitCode).toBe(
      0,
    );
    const again = await attractor(['resume', 'done'], { cwd });
    expect(again.exitCode).toBe(2);
    // In CLI words, not the library's `from` option (third new-user trial).
    expect(again.stderr).toContain(
      'Cannot resume done: the run already completed successfully; pass --from <node> to re-run from a node (`attractor resume done --from <node>`).',
    );
    expect(again.stderr).not.toContain('Pass `from`');
    // The refusal names no run directory as if the run went on (third new-user trial).
    expect(`${again.stdout}${again.stderr}`).not.toContain('Run directory:');
    const rerun = await attractor(['resume', 'done', '--from', 'review'], { cwd });
    expect(rerun.exitCode).toBe(0);
    expect(rerun.stdout.split('\n')[0]).toBe('Run directory: done');
    const overwrite = await attractor(['run', PIPELINE, '--simulate', '--logs-dir', 'done'], { cwd });
    expect(overwrite.exitCode).toBe(2);
    expect(overwrite.stderr).toContain(
      'Run directory done already holds a run. Continue it with `attractor resume done`, or pass another --logs-dir.',
    );
    const viaPnpm = await attractor(['run', PIPELINE, '--simulate', '--logs-dir', 'done'], {
      cwd,
      env: { npm_command: 'exec', npm_config_user_agent: 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64' },
    });
    expect(viaPnpm.stderr).toContain('Continue it with `pnpm exec attractor resume done`');
  });
});
