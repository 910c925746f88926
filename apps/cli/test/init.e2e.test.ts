import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

describe('attractor init', () => {
  it('writes a starter project that validates, is formatted, and runs with --simulate at once', async () => {
    const cwd = await temporaryDirectory();
    const init = await attractor(['init', 'starter'], { cwd });
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stderr).toContain(
      'created a starter project in starter: pipeline.dot, prompts/plan.md, attractor.config.mjs, README.md, .gitignore',
    );
    expect(init.stderr).toContain('cd starter');
    const project = join(cwd, 'starter');
    expect((await readdir(project)).sort()).toEqual(
      ['.gitignore', 'README.md', 'attractor.config.mjs', 'pipeline.dot', 'prompts'].sort(),
    );
    expect(await readFile(join(project, '.gitignore'), 'utf8')).toContain('.attractor/');

    // The config's custom handler is known (no type_known), the prompt file is found (no prompt_file): no finding.
    const validate = await attractor(['validate', 'pipeline.dot'], { cwd: project });
    expect(validate.exitCode, validate.stdout).toBe(0);
    expect(validate.stdout).toBe('✔ pipeline.dot: valid (6 nodes, 7 edges)');
    expect((await attractor(['fmt', '--check', 'pipeline.dot'], { cwd: project })).exitCode).toBe(0);

    const run = await attractor(['run', 'pipeline.dot', '--simulate', '--answer', 'Y'], { cwd: project });
    expect(run.exitCode, run.stderr).toBe(0);
    const runs = join(project, '.attractor', 'runs');
    const [runDir] = await readdir(runs);
    // The LLM stage was sent the prompt file's text with the goal in it.
    const prompt = await readFile(join(runs, runDir!, 'plan', 'prompt.md'), 'utf8');
    expect(prompt).toContain('Plan how to reach this goal: Describe what this pipeline should achieve');
    // The tool really ran, and the custom handler ran.
    expect(await readFile(join(runs, runDir!, 'check', 'stdout.txt'), 'utf8')).toMatch(/^v\d+\./);
    const announced = JSON.parse(await readFile(join(runs, runDir!, 'announce', 'status.json'), 'utf8')) as {
      notes: string;
    };
    expect(announced.notes).toBe('announced: Describe what this pipeline should achieve');
  });

  it('writes nothing over existing files, naming them (exit 2); adds to an existing .gitignore', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'pipeline.dot'), 'digraph Mine { start -> exit }\n');
    const refused = await attractor(['init'], { cwd });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      'This directory already has pipeline.dot; attractor init writes nothing',
    );
    expect(existsSync(join(cwd, 'attractor.config.mjs'))).toBe(false);

    const other = await temporaryDirectory();
    await writeFile(join(other, '.gitignore'), 'node_modules/');
    expect((await attractor(['init'], { cwd: other })).exitCode).toBe(0);
    expect(await readFile(join(other, '.gitignore'), 'utf8')).toBe('node_modules/\n.attractor/\n');
  });
});
