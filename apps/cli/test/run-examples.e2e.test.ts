/**
 * Every example pipeline runs to its expected outcome through the built binary, offline (--simulate, scripted
 * answers, the simulate script). Each test works on a copy of examples/ in a temporary directory, so the
 * repository stays clean, and runs the commands exactly as the README and examples/README.md write them.
 */
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/inspect/summarize-run.js';
import { attractor, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

async function copyOfExamples(): Promise<string> {
  const directory = await temporaryDirectory('attractor-examples-');
  await cp(join(REPO_ROOT, 'examples', 'pipelines'), join(directory, 'examples', 'pipelines'), {
    recursive: true,
  });
  await cp(join(REPO_ROOT, 'examples', 'sample-project'), join(directory, 'examples', 'sample-project'), {
    recursive: true,
  });
  return directory;
}

/** Runs an example and returns the exit code, output and the run summary of `attractor inspect --json`. */
async function runExample(args: readonly string[]): Promise<{
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  summary: RunSummary;
  cwd: string;
}> {
  const cwd = await copyOfExamples();
  const result = await attractor(['run', ...args], { cwd });
  const runDir = /^Run directory: (.+)$/m.exec(result.stdout)?.[1];
  expect(runDir, result.stdout + result.stderr).toBeDefined();
  const inspected = await attractor(['inspect', runDir!, '--json'], { cwd });
  return {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    summary: JSON.parse(inspected.stdout) as RunSummary,
    cwd,
  };
}

const W = ['--workdir', 'examples/sample-project'];

describe('example pipelines run offline through the CLI', () => {
  it('build-and-test (the README command) checks, tests and packages the sample project', async () => {
    const { exitCode, stdout, summary } = await runExample([
      'examples/pipelines/build-and-test.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.state).toBe('success');
    expect(summary.route).toEqual([
      'start',
      'plan',
      'checks',
      'collect',
      'all_green',
      'package',
      'report',
      'exit',
    ]);
    const branches = summary.stages
      .filter((stage) => stage.branchPath.length > 0)
      .map((stage) => [stage.nodeId, stage.state]);
    expect(branches.sort()).toEqual([
      ['docs', 'success'],
      ['syntax', 'success'],
      ['tests', 'success'],
    ]);
    // The package stage really ran the sample project's build script into its stage directory.
    const packageDir = join(summary.logsRoot, 'package');
    const files = await readdir(packageDir);
    expect(files).toContain('stdout.txt');
    expect(stdout).toMatch(/✔ Pipeline succeeded in .* \(8 stages\)/);
    expect(stdout).toContain(`run directory: .attractor/runs/`);
  });

  it('release-approval follows queued answers: request changes, then approve and publish', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/release-approval.dot',
      '--simulate',
      ...W,
      '--answer',
      'R',
      '--answer',
      'A',
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'draft', 'approve', 'revise', 'approve', 'publish', 'exit']);
    const publishOutput = await readFile(join(summary.logsRoot, 'publish', 'stdout.txt'), 'utf8');
    expect(publishOutput).toBe(`release notes published for run ${summary.runId}\n`);
  });

  it('release-approval warns about --answer values no question took', async () => {
    const { exitCode, stderr, summary } = await runExample([
      'examples/pipelines/release-approval.dot',
      '--simulate',
      ...W,
      '--answer',
      'A',
      '--answer',
      'Y',
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'draft', 'approve', 'publish', 'exit']);
    expect(stderr).toContain(
      'warning: 1 --answer value was not used ("Y"): the run asked fewer questions. Each --answer answers one question, in order.',
    );
  });

  it('release-approval with --auto-approve takes the first option', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/release-approval.dot',
      '--simulate',
      ...W,
      '--auto-approve',
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'draft', 'approve', 'publish', 'exit']);
  });

  it('release-approval without answers and without a terminal fails at the gate, saying how to answer', async () => {
    const { exitCode, stdout, summary } = await runExample([
      'examples/pipelines/release-approval.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(1);
    expect(summary.state).toBe('fail');
    expect(stdout).toContain('Pass --answer <key> (options: A, R, D) or --auto-approve.');
    expect(stdout).toMatch(/resume with: {3}attractor resume \.attractor\/runs\/\S+-ReleaseApproval$/m);
  });

  it('ensemble-review runs three reviewers in parallel and a judged fan-in', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/ensemble-review.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'fan_out', 'judge', 'summary', 'exit']);
    expect(
      summary.stages
        .filter((stage) => stage.branchPath.length === 1)
        .map((stage) => stage.nodeId)
        .sort(),
    ).toEqual(['api_design', 'correctness', 'tests_review']);
  });

  it('merge-reviews merges two reviews and a tool output, each in full, into one result', async () => {
    const { exitCode, stdout, summary, cwd } = await runExample([
      'examples/pipelines/merge-reviews.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'fan_out', 'merge', 'report', 'exit']);
    const runDir = join(cwd, /^Run directory: (.+)$/m.exec(stdout)![1]!);
    const prompt = await readFile(join(runDir, 'merge', 'prompt.md'), 'utf8');
    for (const branch of ['correctness', 'api_design', 'inventory'])
      expect(prompt).toContain(`## ${branch} (success)`);
    // The tool branch's full stdout (`ls src`), not a 200-character excerpt.
    expect(prompt).toContain('slugify.js');
    expect(await readFile(join(runDir, 'merge', 'response.md'), 'utf8')).not.toBe('');
  });

  it('flaky-retry retries the flaky fetch once and passes the goal gate', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/flaky-retry.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'fetch_fixtures', 'run_tests', 'verify', 'exit']);
    expect(summary.stages.find((stage) => stage.nodeId === 'fetch_fixtures')).toMatchObject({
      attempts: 2,
      visits: 1,
      state: 'success',
    });
  });

  it('triage-routing follows the simulate script (bug) to the reproduction branch', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/triage-routing.dot',
      '--simulate-script',
      'examples/pipelines/triage-routing.simulate.json',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'classify', 'reproduce', 'needs_info', 'exit']);
    expect(summary.stages.find((stage) => stage.nodeId === 'classify')?.state).toBe('bug');
  });

  it('sprint-supervisor runs its child pipeline (relative to the parent file) to completion, then debriefs', async () => {
    const { exitCode, stdout, summary, cwd } = await runExample([
      'examples/pipelines/sprint-supervisor.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'supervise', 'debrief', 'exit']);
    expect(stdout).toContain('▶ child pipeline SprintChild');
    // The child ran in its own run directory under the manager's stage directory.
    const child = await attractor(['inspect', join(summary.logsRoot, 'supervise', 'child'), '--json'], {
      cwd,
    });
    const childSummary = JSON.parse(child.stdout) as RunSummary;
    expect(childSummary.graphName).toBe('SprintChild');
    expect(childSummary.route).toEqual(['start', 'implement', 'test', 'exit']);
  });

  it('sprint-child runs on its own', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/sprint-child.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'implement', 'test', 'exit']);
  });

  it('ship-with-checks runs checks-core.dot as two sub-pipeline stages, each in its own run directory', async () => {
    const { exitCode, stdout, summary, cwd } = await runExample([
      'examples/pipelines/ship-with-checks.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode, stdout).toBe(0);
    expect(summary.route).toEqual(['start', 'baseline', 'change', 'checks', 'package', 'exit']);
    expect(stdout.match(/▶ child pipeline ChecksCore/g)).toHaveLength(2);
    const quick = await attractor(['inspect', join(summary.logsRoot, 'baseline', 'child'), '--json'], {
      cwd,
    });
    expect((JSON.parse(quick.stdout) as RunSummary).route).toEqual([
      'start',
      'syntax',
      'depth',
      'docs',
      'exit',
    ]);
    const full = await attractor(['inspect', join(summary.logsRoot, 'checks', 'child'), '--json'], { cwd });
    expect((JSON.parse(full.stdout) as RunSummary).route).toEqual([
      'start',
      'syntax',
      'depth',
      'tests',
      'docs',
      'exit',
    ]);
  });

  it('checks-core runs on its own', async () => {
    const { exitCode, summary } = await runExample([
      'examples/pipelines/checks-core.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode).toBe(0);
    expect(summary.route).toEqual(['start', 'syntax', 'depth', 'tests', 'docs', 'exit']);
  });

  it('review-each-file reviews every source file in a foreach and collects the verdicts in file order', async () => {
    const { exitCode, stdout, summary } = await runExample([
      'examples/pipelines/review-each-file.dot',
      '--simulate',
      ...W,
    ]);
    expect(exitCode, stdout).toBe(0);
    expect(summary.route).toEqual(['start', 'list', 'each', 'summary', 'exit']);
    const output = JSON.parse(await readFile(join(summary.logsRoot, 'output.json'), 'utf8')) as {
      verdicts: unknown[];
      reviews: { index: number; item: string; status: string }[];
    };
    // The tool stages really ran: `node --check` of each file of the sample project, one item per file.
    expect(output.verdicts).toEqual([
      { file: 'src/index.js', parses: true },
      { file: 'src/slugify.js', parses: true },
    ]);
    expect(output.reviews.map(({ index, item, status }) => [index, item, status])).toEqual([
      [0, 'src/index.js', 'success'],
      [1, 'src/slugify.js', 'success'],
    ]);
  });

  it('every example pipeline is covered by a test above', async () => {
    const examples = (await readdir(join(REPO_ROOT, 'examples', 'pipelines'))).filter((name) =>
      name.endsWith('.dot'),
    );
    const source = await readFile(new URL(import.meta.url), 'utf8');
    for (const name of examples) expect(source).toContain(`examples/pipelines/${name}'`);
  });
});
