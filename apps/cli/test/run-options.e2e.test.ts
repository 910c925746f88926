import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, FIXTURES, PIPELINES, SAMPLE_PROJECT, temporaryDirectory } from './helpers/cli.js';

describe('attractor run: options, output and exit codes', () => {
  it('--json prints only JSON lines on stdout: every event, from pipeline.started to pipeline.completed', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      ['run', join(PIPELINES, 'build-and-test.dot'), '--simulate', '--workdir', SAMPLE_PROJECT, '--json'],
      { cwd },
    );
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; seq: number; nodeId?: string });
    expect(events[0]?.type).toBe('pipeline.started');
    expect(events.at(-1)?.type).toBe('pipeline.completed');
    expect(events.filter((event) => event.type === 'stage.completed').length).toBeGreaterThanOrEqual(11);
    expect(events.some((event) => event.type === 'parallel.completed')).toBe(true);
    expect(result.stderr).toMatch(/^Run directory: \.attractor\/runs\/\S+-BuildAndTest$/m);
  });

  it('resolves a relative pipeline path against the current directory; one kept elsewhere runs by its absolute path (README)', async () => {
    const pipelines = await temporaryDirectory('attractor-pipelines-');
    const project = await temporaryDirectory('attractor-project-');
    const elsewhere = await temporaryDirectory();
    await writeFile(
      join(pipelines, 'where.dot'),
      'digraph Where { start [shape=Mdiamond]; exit [shape=Msquare]; here [shape=parallelogram, tool_command="pwd > where.txt"]; start -> here -> exit }\n',
    );
    const missing = await attractor(['run', 'where.dot', '--simulate'], { cwd: elsewhere });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe(
      `error: Pipeline file where.dot not found (looked at ${join(elsewhere, 'where.dot')}). Check the path; relative paths are resolved against the current directory.`,
    );
    // An absolute path and --workdir: the run directory stays under the current directory.
    const absolute = await attractor(
      ['run', join(pipelines, 'where.dot'), '--simulate', '--workdir', project],
      { cwd: elsewhere },
    );
    expect(absolute.exitCode, absolute.stderr).toBe(0);
    expect(await readFile(join(project, 'where.txt'), 'utf8')).toBe(`${project}\n`);
    expect(await readdir(join(elsewhere, '.attractor', 'runs'))).toHaveLength(1);
    // From the pipeline's own directory, a relative path works and that directory is the working directory.
    const relative = await attractor(['run', 'where.dot', '--simulate'], { cwd: pipelines });
    expect(relative.exitCode, relative.stderr).toBe(0);
    expect(await readFile(join(pipelines, 'where.txt'), 'utf8')).toBe(`${pipelines}\n`);
  });

  it('without --simulate and without OPENAI_API_KEY fails before running, naming the stages, OPENAI_API_KEY and --simulate', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      ['run', join(PIPELINES, 'build-and-test.dot'), '--workdir', SAMPLE_PROJECT],
      { cwd },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'error: The pipeline was not started: 3 LLM stages cannot run.\n  - set OPENAI_API_KEY for provider openai: LLM stages "plan", "fix", "report" (model gpt-5.2)\nOr pass --simulate to run without an LLM.',
    );
    expect(result.stdout).toBe('');
    await expect(access(join(cwd, '.attractor'))).rejects.toThrow();
  });

  it('refuses a DOT file with a syntax error: file:line:col, the line, a caret, a fix; exit 2; no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'broken.dot'),
      'digraph Broken {\n  start [shape=Mdiamond]\n  start -> [label="x"]\n}\n',
    );
    const result = await attractor(['run', 'broken.dot', '--simulate'], { cwd });
    expect(result.exitCode).toBe(2);
    const lines = result.stderr.split('\n');
    const head = lines.findIndex((line) => line.startsWith('broken.dot:3:12: error[dot_syntax]:'));
    expect(head, result.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[head + 1]).toBe('> 3 |   start -> [label="x"]');
    expect(lines[head + 2]).toMatch(/^ {4}\| {12}\^/);
    expect(lines[head + 3]).toMatch(/^ {2}fix: /);
    expect(result.stderr).toContain('error: broken.dot: 1 error; the pipeline was not run.');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a --logs-dir that is a file or lies under one: which path, why, what to pass; exit 2; no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'notes.txt'), 'mine\n');
    for (const [logsDir, reason] of [
      ['notes.txt', 'a file of that name exists (EEXIST)'],
      ['notes.txt/run', 'a part of the path is a file, not a directory (ENOTDIR)'],
    ] as const) {
      const result = await attractor(
        [
          'run',
          join(PIPELINES, 'build-and-test.dot'),
          '--simulate',
          '--workdir',
          SAMPLE_PROJECT,
          '--logs-dir',
          logsDir,
        ],
        { cwd },
      );
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `Cannot create the run directory ${logsDir}: ${reason}. Pass --logs-dir a directory you can write to (it is created if missing).`,
      );
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await readFile(join(cwd, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('refuses a pipeline with lint errors before running it', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(['run', join(FIXTURES, 'lint-errors.dot'), '--simulate'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('error[attribute_type]');
    await expect(access(join(cwd, '.attractor'))).rejects.toThrow();
  });

  it('--set values are JSON-parsed (retries=3 is the number 3) and reach conditions', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(FIXTURES, 'echo-context.dot'),
        '--simulate',
        '--set',
        'retries=3',
        '--set',
        'topic=release notes',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode).toBe(0);
    const inspected = JSON.parse((await attractor(['inspect', 'run', '--json'], { cwd })).stdout) as {
      route: string[];
    };
    expect(inspected.route).toEqual(['start', 'show', 'exit']);
    const checkpoint = JSON.parse(
      await import('node:fs/promises').then((fs) => fs.readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')),
    ) as { context: Record<string, unknown> };
    expect(checkpoint.context.retries).toBe(3);
    expect(checkpoint.context.topic).toBe('release notes');
  });

  it('--dry-run records tool commands without running them and needs no API key', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(PIPELINES, 'build-and-test.dot'),
        '--dry-run',
        '--workdir',
        SAMPLE_PROJECT,
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode).toBe(0);
    const command = await readFile(join(cwd, 'run', 'package', 'command.sh'), 'utf8');
    expect(command).toContain('node scripts/build.js "$ATTRACTOR_STAGE_DIR"');
    // The build script did not run: it would have written the package into the stage directory.
    await expect(access(join(cwd, 'run', 'package', 'package'))).rejects.toThrow();
  });

  it('exits 2 for a bad option value, saying what a good one looks like', async () => {
    const result = await attractor([
      'run',
      join(PIPELINES, 'build-and-test.dot'),
      '--simulate',
      '--max-steps',
      'many',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "option '--max-steps <n>' argument 'many' is invalid. expected a whole number of at least 1",
    );
  });

  it('exits 2 for a missing working directory', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      ['run', join(PIPELINES, 'build-and-test.dot'), '--simulate', '--workdir', 'nowhere'],
      { cwd },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'Working directory nowhere not found. Pass an existing directory with --workdir.',
    );
  });

  it('exits 2 before the run for a --workdir that is a file, saying so', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'notes.txt'), 'not a directory\n');
    const result = await attractor(
      [
        'run',
        join(PIPELINES, 'build-and-test.dot'),
        '--dry-run',
        '--workdir',
        'notes.txt',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'Working directory notes.txt is a file, not a directory. Pass the directory the tool commands run in with --workdir (e.g. .).',
    );
    expect(result.stderr).not.toContain('ENOTDIR');
    expect(result.stdout).not.toContain('Run directory');
    expect(await readdir(cwd)).toEqual(['notes.txt']);
  });

  it('--max-steps stops a run that needs more node executions (exit 1, reason names the limit)', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(PIPELINES, 'build-and-test.dot'),
        '--simulate',
        '--workdir',
        SAMPLE_PROJECT,
        '--max-steps',
        '3',
      ],
      { cwd },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(/✖ Pipeline failed after .*max_steps/);
    // Resume reuses the recorded limit, so the printed resume command raises it (doubles it): following the printed
    // commands finishes the run instead of stopping at once again.
    let output = result.stdout;
    const limits: number[] = [];
    for (let round = 0; round < 4 && !output.includes('✔ Pipeline succeeded'); round += 1) {
      const printed = /resume with:\s+attractor resume (\S+) --max-steps (\d+)$/m.exec(output);
      expect(printed, output).not.toBeNull();
      limits.push(Number(printed![2]));
      output = (await attractor(['resume', printed![1]!, '--max-steps', printed![2]!], { cwd })).stdout;
    }
    expect(limits[0]).toBe(6);
    expect(output).toMatch(/✔ Pipeline succeeded/);
  });

  it('-q prints the run directory, then only the final summary, as its help says', async () => {
    const help = await attractor(['run', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '-q, --quiet print only the run directory, warnings, errors and the final summary',
    );
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(PIPELINES, 'build-and-test.dot'),
        '--simulate',
        '--workdir',
        SAMPLE_PROJECT,
        '-q',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'Run directory: run',
      expect.stringMatching(/^✔ Pipeline succeeded in .+ \(\d+ stages\)$/),
      '  run directory: run',
    ]);
  });

  it('-q keeps a stage warning: the tool-output truncation is still printed (issue 34 §15)', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'loud.dot'),
      `digraph loud {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  loud [shape=parallelogram, tool_command="head -c 5000 /dev/zero | tr '\\\\0' x", tool_output_max_bytes=100]
  start -> loud -> exit
}`,
    );
    const result = await attractor(['run', 'loud.dot', '--simulate', '-q', '--logs-dir', 'run'], { cwd });
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'Run directory: run',
      '  loud: output truncated at tool_output_max_bytes=100: stdout (4900 more bytes dropped)',
      expect.stringMatching(/^✔ Pipeline succeeded in .+ \(\d+ stages\)$/),
      '  run directory: run',
    ]);
  });
});
