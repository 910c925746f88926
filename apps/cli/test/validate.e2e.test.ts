import { realpathSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { attractor, BIN, childEnv, FIXTURES, PIPELINES, temporaryDirectory } from './helpers/cli.js';

describe('attractor validate (spec §7)', () => {
  it('accepts every example pipeline with exit code 0 and a summary line', async () => {
    const files = (await readdir(PIPELINES))
      .filter((name) => name.endsWith('.dot'))
      .map((name) => join(PIPELINES, name));
    const result = await attractor(['validate', ...files]);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^${files.length} files checked: 0 errors, \\d+ warnings?$`, 'm'),
    );
    for (const file of files) expect(result.stdout).toContain(`✔ ${file}: valid`);
  });

  it('prints errors like a compiler (file:line:col, excerpt, caret, fix) and exits 1', async () => {
    const file = join(FIXTURES, 'lint-errors.dot');
    const result = await attractor(['validate', file]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(`${file}:5:42: error[attribute_type]: Node "plan" has timeout="soon"`);
    expect(result.stdout).toContain('> 5 |   plan  [prompt="Plan the work", timeout="soon"]');
    expect(result.stdout).toMatch(/^\s+\|\s+\^{6}$/m);
    expect(result.stdout).toContain('fix: Write timeout as a duration');
    expect(result.stdout).toContain(`✖ ${file}: 1 error, 3 warnings (4 nodes, 3 edges)`);
  });

  it('checks conditions against the outcomes the built-in handlers declare', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'gate.dot'),
      'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  ask [shape=hexagon, label="Ship?"]\n  start -> ask\n  ask -> exit [label="Yes", condition="outcome=partial_success"]\n  ask -> start [label="No"]\n}\n',
    );
    const result = await attractor(['validate', 'gate.dot'], { cwd });
    expect(result.stdout).toContain(
      'gate.dot:6:48: warning[outcome_coverage]: Edge ask -> exit is never taken: "ask" is a wait.human node, which returns only success, fail, retry, never partial_success.',
    );
  });

  it('validates the readable files before reporting one that does not exist (exit 2)', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'nostart.dot'),
      'digraph G {\n  a [prompt="x"]\n  exit [shape=Msquare]\n  a -> exit\n}\n',
    );
    const result = await attractor(['validate', 'missing.dot', 'nostart.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain('nostart.dot:1:9: error[start_node]');
    expect(result.stdout).toContain('✖ nostart.dot: 1 error (2 nodes, 1 edge)');
    expect(result.stderr).toContain('missing.dot');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('names the file and the digraph line of a finding about the whole graph (no start node), not <input>', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'nostart.dot'),
      'digraph G {\n  a [prompt="x"]\n  exit [shape=Msquare]\n  a -> exit\n}\n',
    );
    const result = await attractor(['validate', 'nostart.dot'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('nostart.dot:1:9: error[start_node]: Graph "G" has no start node.');
    expect(result.stdout).toContain('> 1 | digraph G {');
    expect(result.stdout).not.toContain('<input>');
    const run = await attractor(['run', 'nostart.dot', '--simulate'], { cwd });
    expect(run.stderr).toContain('nostart.dot:1:9: error[start_node]: Graph "G" has no start node.');
  });

  it('shows a DOT syntax error with file:line:col and a caret under the column', async () => {
    const file = join(FIXTURES, 'syntax-error.dot');
    const result = await attractor(['validate', file]);
    expect(result.exitCode).toBe(1);
    const lines = result.stdout.split('\n');
    const head = lines.findIndex((line) => line.startsWith(`${file}:4:12: error[dot_syntax]:`));
    expect(head).toBeGreaterThanOrEqual(0);
    expect(lines[head + 1]).toBe('> 4 |   start -> ;');
    // The caret sits under column 12 of the source line (after the "> 4 | " gutter).
    const caretLine = lines[head + 2] ?? '';
    expect(caretLine.indexOf('^') - caretLine.indexOf('|') - 2).toBe(11);
    expect(result.stdout).toContain('fix: ');
  });

  it('with --json prints one parseable document with every diagnostic and exits 1 on errors', async () => {
    const good = join(PIPELINES, 'build-and-test.dot');
    const bad = join(FIXTURES, 'lint-errors.dot');
    const result = await attractor(['validate', '--json', good, bad]);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      errors: number;
      files: {
        file: string;
        valid: boolean;
        nodes: number;
        diagnostics: { rule: string; severity: string; span?: { start: { line: number; column: number } } }[];
      }[];
    };
    expect(report.valid).toBe(false);
    expect(report.errors).toBe(1);
    expect(report.files.map((file) => [file.file, file.valid])).toEqual([
      [good, true],
      [bad, false],
    ]);
    const error = report.files[1]?.diagnostics.find((diagnostic) => diagnostic.severity === 'error');
    expect(error?.rule).toBe('attribute_type');
    expect(error?.span?.start).toMatchObject({ line: 5, column: 42 });
  });

  it('refuses a mistyped handler shape (shape=hexgon) at file:line:col with the shape meant, and run does not start', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'gate.dot'),
      'digraph G {\n  start [shape=Mdiamond]\n  exit  [shape=Msquare]\n  ask   [shape=hexgon, label="Ship it?"]\n  start -> ask -> exit\n}\n',
    );
    const validated = await attractor(['validate', 'gate.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'gate.dot:4:16: error[shape_mapping]: Node "ask" has shape=hexgon, which is neither a Graphviz shape nor a handler shape (spec §2.8), so it would run as an LLM (codergen) stage. Did you mean "hexagon" (the wait.human handler)?',
    );
    expect(validated.stdout).toContain(
      'fix: Change shape=hexgon to shape=hexagon, or set type="wait.human".',
    );
    const run = await attractor(['run', '--simulate', 'gate.dot'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('gate.dot:4:16: error[shape_mapping]:');
    expect(run.stdout).not.toContain('Run directory');
  });

  it('warns about a node declared twice with different prompts, at the later key, and still exits 0', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'twice.dot'),
      'digraph G {\n  start [shape=Mdiamond]\n  exit  [shape=Msquare]\n  plan  [prompt="Write a plan"]\n  start -> plan -> exit\n  plan  [prompt="Totally different prompt"]\n}\n',
    );
    const result = await attractor(['validate', 'twice.dot'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      'twice.dot:6:10: warning[attribute_overridden]: Node "plan" sets prompt at line 6, replacing a different value set at line 4; only the value at line 6 is used.',
    );
    expect(result.stdout).toContain(
      'fix: Remove one of the two prompt values, or merge them into one statement.',
    );
  });

  it('refuses a misspelt condition key (outcom=success) at the key with the key meant, and run does not start', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'route.dot'),
      'digraph G {\n  start [shape=Mdiamond]\n  exit  [shape=Msquare]\n  test  [shape=parallelogram, tool_command="true"]\n  review [prompt="Review"]\n  start -> test\n  test -> review [condition="outcom=success"]\n  test -> exit [condition="outcome=fail"]\n  review -> exit\n}\n',
    );
    const validated = await attractor(['validate', 'route.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout).toContain(
      'route.dot:7:30: error[condition_key]: Edge test -> review has condition "outcom=success" whose key "outcom" is read from the run context (spec §10.4), not the node\'s outcome. Did you mean "outcome"?',
    );
    expect(validated.stdout).toContain(
      'fix: Write outcome=success; if "outcom" really is a context key, write context.outcom=success.',
    );
    const run = await attractor(['run', '--simulate', 'route.dot'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('route.dot:7:30: error[condition_key]:');
    expect(run.stdout).not.toContain('Run directory');
  });

  it('warns about a mistyped handler type (type="subgrahp") at file:line:col with the type meant (spec §7.2: a warning)', async () => {
    const dir = await temporaryDirectory();
    await writeFile(
      join(dir, 'child.dot'),
      'digraph C {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n',
    );
    await writeFile(
      join(dir, 'parent.dot'),
      'digraph G {\n  start [shape=Mdiamond]\n  exit  [shape=Msquare]\n  child [type="subgrahp", graph_ref="child.dot"]\n  start -> child -> exit\n}\n',
    );
    const validated = await attractor(['validate', 'parent.dot'], { cwd: dir });
    expect(validated.exitCode).toBe(0);
    expect(validated.stdout).toContain(
      'parent.dot:4:15: warning[type_known]: Node "child" has type "subgrahp", which no registered handler has, so it runs as an LLM (codergen) stage, the default handler. Did you mean "subgraph"?',
    );
    expect(validated.stdout).toContain(
      'fix: If this node should run the subgraph handler, change type to "subgraph"; otherwise register a handler for "subgrahp".',
    );
  });

  it('exits 2 with a one-line message and no stack trace for a missing file', async () => {
    const result = await attractor(['validate', 'no/such/pipeline.dot']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^error: Pipeline file no\/such\/pipeline\.dot not found \(looked at .*pipeline\.dot\)\./,
    );
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it('exits 2 for an unknown option, suggesting the right one', async () => {
    const result = await attractor(['validate', '--jsn', join(PIPELINES, 'build-and-test.dot')]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("unknown option '--jsn'");
    expect(result.stderr).toContain('--json');
  });

  it('loads neither the handlers, the AI SDK, Graphviz nor execa (start-up cost)', async () => {
    const result = await execa(
      'node',
      [
        '--import',
        join(FIXTURES, 'load-trace', 'register.mjs'),
        BIN,
        'validate',
        join(PIPELINES, 'build-and-test.dot'),
      ],
      { env: childEnv(), extendEnv: false, reject: false },
    );
    expect(result.exitCode).toBe(0);
    const loaded = result.stderr.split('\n').filter((line) => line.startsWith('LOADED '));
    // The bundle (scripts/bundle-cli.mjs) and its validate chunk, which holds @attractor/graph, dot, condition,
    // stylesheet and Ohm: three files instead of ~160 modules.
    const files = [...new Set(loaded.map((line) => line.slice('LOADED '.length)))].filter((url) =>
      url.startsWith('file:'),
    );
    expect(files).toEqual([
      // Node loads the link's target, bin/attractor.js.
      pathToFileURL(realpathSync(BIN)).href,
      expect.stringMatching(/\/apps\/cli\/dist\/attractor\.mjs$/),
      expect.stringMatching(/\/apps\/cli\/dist\/chunks\/validate-command-[\w-]+\.mjs$/),
    ]);
    for (const heavy of [
      '/packages/handlers/',
      '/packages/backend-ai-sdk/',
      '/packages/engine/',
      'node_modules/ai/',
      '@viz-js',
      '/execa/',
      '@ai-sdk',
    ]) {
      expect(loaded.filter((line) => line.includes(heavy))).toEqual([]);
    }
  });
});
