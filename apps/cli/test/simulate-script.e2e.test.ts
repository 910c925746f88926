import { access, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const TEST_LOOP = `digraph Loop {
  start  [shape=Mdiamond]
  exit   [shape=Msquare]
  test   [prompt="Run the tests"]
  fix    [prompt="Fix the failures"]
  review [prompt="Review"]
  start -> test
  test -> review [condition="outcome=success"]
  test -> fix [condition="outcome=fail"]
  fix -> test
  review -> exit
}
`;

describe('attractor run --simulate-script: the script is checked before the run', () => {
  it('refuses a step word that is a typo of an outcome word, with the key, the index, the word meant and the words', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'loop.dot'), TEST_LOOP);
    await writeFile(join(cwd, 'script.json'), JSON.stringify({ test: ['fial', 'success'] }));
    const result = await attractor(['run', 'loop.dot', '--simulate-script', 'script.json'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `"test"[0] is "fial", which is no outcome word. Did you mean "fail"? Outcome words are success, partial_success, retry, fail, skipped.`,
    );
    expect(result.stdout).not.toContain('✔ test');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('accepts a custom outcome word the pipeline routes on, even one close to a standard word', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'gate.dot'),
      'digraph Gate {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  check [prompt="Ready?"]\n  start -> check\n  check -> exit [condition="outcome=ready"]\n  check -> check [condition="outcome!=ready"]\n}\n',
    );
    await writeFile(join(cwd, 'script.json'), JSON.stringify({ check: ['ready'] }));
    const result = await attractor(['run', 'gate.dot', '--simulate-script', 'script.json'], { cwd });
    // Lint warns that outcome=ready looks like outcome=retry; the script follows the pipeline.
    expect(result.stderr).not.toContain('Simulation script');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('check ready');
  });

  it('refuses a stdout step for an LLM stage before any stage runs, with the key, the index and what it takes', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'draft.dot'),
      'digraph Draft {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  plan [prompt="Plan"]\n  write [prompt="Write"]\n  start -> plan -> write -> exit\n}\n',
    );
    await writeFile(join(cwd, 'script.json'), JSON.stringify({ write: [{ stdout: 'x' }] }));
    const result = await attractor(['run', 'draft.dot', '--dry-run', '--simulate-script', 'script.json'], {
      cwd,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      '"write"[0].stdout is set, but "write" is an LLM stage (codergen), which takes an outcome word ("success", "fail", "retry", "partial_success" or a custom word the pipeline routes on) or {"outcome": "..."}; "stdout" is only for tool nodes (shape=parallelogram) in a dry run',
    );
    expect(result.stdout).not.toContain('plan');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(cwd)).toEqual(['draft.dot', 'script.json']);
  });

  it('reports an invalid script before creating the run directory or printing it', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'loop.dot'), TEST_LOOP);
    await writeFile(join(cwd, 'script.json'), JSON.stringify({ test: [{ outcom: 'fail' }] }));
    const result = await attractor(['run', 'loop.dot', '--simulate-script', 'script.json'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('"test"[0] has unknown key "outcom"');
    expect(result.stdout).not.toContain('Run directory');
    expect(await readdir(cwd)).toEqual(['loop.dot', 'script.json']);
    const withLogsDir = await attractor(
      ['run', 'loop.dot', '--simulate-script', 'script.json', '--logs-dir', 'run'],
      { cwd },
    );
    expect(withLogsDir.exitCode).toBe(2);
    await expect(access(join(cwd, 'run'))).rejects.toThrow();
  });

  it('gives each call of a node its next step, retries included (the README example)', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'loop.dot'),
      TEST_LOOP.replace('[prompt="Run the tests"]', '[prompt="Run the tests", max_retries=2]'),
    );
    await writeFile(join(cwd, 'once.json'), JSON.stringify({ test: ['fail'] }));
    const once = await attractor(['run', 'loop.dot', '--simulate-script', 'once.json'], { cwd });
    expect(once.exitCode).toBe(0);
    expect(once.stdout).toMatch(/^✔ test .*2 attempts$/m);
    expect(once.stdout).not.toContain('✔ fix');
    await writeFile(join(cwd, 'visit.json'), JSON.stringify({ test: ['fail', 'fail', 'fail'] }));
    const visit = await attractor(['run', 'loop.dot', '--simulate-script', 'visit.json'], { cwd });
    expect(visit.exitCode).toBe(0);
    expect(visit.stdout).toMatch(/^✖ test fail .*3 attempts/m);
    expect(visit.stdout).toContain('✔ fix');
    expect(visit.stdout).toMatch(/^✔ test .*visit 2$/m);
  });
});

const SUMMARIZE = `digraph Summary {
  start     [shape=Mdiamond]
  exit      [shape=Msquare]
  summarize [shape=box, prompt="Summarize the notes"]
  publish   [shape=box, prompt="Publish the summary"]
  start -> summarize
  summarize -> publish [condition="outcome=success"]
  publish -> exit
}
`;

describe('attractor resume --simulate-script: a resumed run takes each node its next step', () => {
  it('a run that failed at step 1 resumes at step 2 and succeeds', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'mine.dot'), SUMMARIZE);
    await writeFile(join(cwd, 's.json'), JSON.stringify({ summarize: ['fail', 'success'] }));
    const run = await attractor(['run', 'mine.dot', '--simulate-script', 's.json', '--logs-dir', 'run'], {
      cwd,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('simulated fail (script entry 1 for "summarize")');
    const resumed = await attractor(['resume', 'run'], { cwd });
    expect(resumed.stderr).not.toContain('script entry 1');
    expect(resumed.stdout).not.toContain('script entry');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(/^✔ summarize/m);
    expect(resumed.stdout).toMatch(/^✔ publish/m);
  });

  it('a node scripted ["fail", "fail", "success"] fails, fails again on the first resume and succeeds on the second', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'mine.dot'), SUMMARIZE);
    await writeFile(join(cwd, 's.json'), JSON.stringify({ summarize: ['fail', 'fail', 'success'] }));
    const run = await attractor(['run', 'mine.dot', '--simulate-script', 's.json', '--logs-dir', 'run'], {
      cwd,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('simulated fail (script entry 1 for "summarize")');
    const first = await attractor(['resume', 'run'], { cwd });
    expect(first.exitCode).toBe(1);
    expect(first.stdout).toContain('simulated fail (script entry 2 for "summarize")');
    expect(first.stdout).not.toContain('script entry 1');
    const second = await attractor(['resume', 'run'], { cwd });
    expect(second.stdout).not.toContain('script entry');
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/^✔ publish/m);
  });
});

describe('attractor resume/fork --simulate-script: dry-run tool nodes and forks continue the script too', () => {
  it('a dry-run tool node scripted ["fail", "success"] takes step 2 on resume', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'tools.dot'),
      'digraph Tools {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  probe [shape=parallelogram, tool_command="./probe.sh"]\n  start -> probe\n  probe -> exit [condition="outcome=success"]\n}\n',
    );
    await writeFile(join(cwd, 's.json'), JSON.stringify({ probe: ['fail', { stdout: 'ready' }] }));
    const run = await attractor(
      ['run', 'tools.dot', '--dry-run', '--simulate-script', 's.json', '--logs-dir', 'run'],
      { cwd },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('simulated fail (script entry 1 for "probe")');
    const resumed = await attractor(['resume', 'run'], { cwd });
    expect(resumed.stdout).not.toContain('script entry');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(/^✔ probe/m);
  });

  it('a fork continues each node where the source run was after the stage it forks at', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'loop.dot'), TEST_LOOP);
    await writeFile(join(cwd, 's.json'), JSON.stringify({ test: ['fail', 'success'] }));
    const source = await attractor(
      ['run', 'loop.dot', '--simulate-script', 's.json', '--logs-dir', 'source'],
      { cwd },
    );
    expect(source.exitCode).toBe(0);
    expect(source.stdout).toMatch(/^✖ test fail/m);
    // After test@1 (its failed call 1) the source went on to fix, then test's call 2: success.
    const forked = await attractor(['fork', 'source', '--at', 'test@1', '--logs-dir', 'forked'], { cwd });
    expect(forked.exitCode).toBe(0);
    expect(forked.stdout).toMatch(/^✔ fix/m);
    expect(forked.stdout).toMatch(/^✔ test/m);
    expect(forked.stdout).not.toContain('✖ test');
  });
});
