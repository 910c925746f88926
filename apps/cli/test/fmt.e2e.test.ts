import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

const MESSY = `digraph Review {  graph [goal="Ship it"]
start [shape="Mdiamond"]; exit [shape=Msquare]
  // the work
work [prompt="Do: $goal", label=Work, max_retries="2"] start -> work -> exit
}
`;
const FORMATTED = `digraph Review {
  graph [goal="Ship it"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  // the work
  work [label="Work", max_retries=2, prompt="Do: $goal"]
  start -> work -> exit
}
`;

describe('attractor fmt', () => {
  it('rewrites a file in the canonical layout, leaves a formatted one alone, and --check then passes', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'review.dot'), MESSY);
    await writeFile(join(cwd, 'done.dot'), FORMATTED);

    const check = await attractor(['fmt', '--check', 'review.dot', 'done.dot'], { cwd });
    expect(check.exitCode).toBe(1);
    expect(check.stdout).toBe('review.dot');
    expect(check.stderr).toContain('1 file not formatted; run `attractor fmt review.dot` to format it.');
    expect(await readFile(join(cwd, 'review.dot'), 'utf8')).toBe(MESSY);

    const fmt = await attractor(['fmt', 'review.dot', 'done.dot'], { cwd });
    expect(fmt.exitCode).toBe(0);
    expect(fmt.stderr).toContain('1 file formatted, 1 file already formatted');
    expect(await readFile(join(cwd, 'review.dot'), 'utf8')).toBe(FORMATTED);

    const again = await attractor(['fmt', '--check', 'review.dot', 'done.dot'], { cwd });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('2 files already formatted');
    // The formatted pipeline is still valid: formatting changes the layout, never the graph.
    expect((await attractor(['validate', 'review.dot'], { cwd })).exitCode).toBe(0);
  });

  it('formats standard input to standard output with -', async () => {
    const result = await attractor(['fmt', '-'], { input: MESSY });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(FORMATTED.trimEnd());
  });

  it('reports a file that does not parse like validate, leaves it, formats the others and exits 2', async () => {
    const cwd = await temporaryDirectory();
    const broken = 'digraph G {\n  a -> \n}\n';
    await writeFile(join(cwd, 'broken.dot'), broken);
    await writeFile(join(cwd, 'review.dot'), MESSY);
    const result = await attractor(['fmt', 'broken.dot', 'review.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^broken\.dot:3:1: error\[dot_syntax\]: /m);
    expect(result.stderr).toContain('1 file could not be parsed and was left as it was');
    // A summary that counts the failure, without the green check of a clean run.
    expect(result.stderr).toContain('1 file formatted, 0 files already formatted, 1 file failed\n');
    expect(result.stderr).not.toContain('✔');
    expect(await readFile(join(cwd, 'broken.dot'), 'utf8')).toBe(broken);
    expect(await readFile(join(cwd, 'review.dot'), 'utf8')).toBe(FORMATTED);
  });

  it('names a file that does not exist (exit 2)', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(['fmt', 'missing.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Pipeline file missing.dot not found');
    // The error alone: no summary of zero files, no green check.
    expect(result.stderr).not.toContain('✔');
    expect(result.stderr).not.toContain('formatted');
  });

  it('finds every example pipeline, the init and new templates and docs/example.dot formatted (what users copy)', async () => {
    const dotFiles = (directory: string) =>
      readdirSync(join(REPO_ROOT, directory), { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.dot'))
        .map((name) => join(directory, name));
    const files = ['docs/example.dot', ...dotFiles('examples'), ...dotFiles('apps/cli/templates')].filter(
      (file) => !file.includes('node_modules'),
    );
    expect(files).toContain('examples/pipelines/build-and-test.dot');
    const result = await attractor(['fmt', '--check', ...files], { cwd: REPO_ROOT });
    expect(result.stdout, 'not formatted: run `pnpm exec attractor fmt` on these').toBe('');
    expect(result.stderr).toContain(`✔ ${files.length} files already formatted`);
    expect(result.exitCode).toBe(0);
  });
});
