/**
 * Pipelines written for other runners (issue 19): each dialect row has a small fixture of its own in
 * test/fixtures/dialects/. Each validates with a `dialect_alias` warning and a fix line, runs to the end with
 * `--dry-run --auto-approve`, and is refused under `--strict`.
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { attractor, FIXTURES, temporaryDirectory } from './helpers/cli.js';

/** Fixture, who writes it that way, and a phrase of the warning that names the mapping. */
const DIALECTS: ReadonlyArray<readonly [file: string, runner: string, warning: string]> = [
  ['fabro-script.dot', 'Fabro script=', 'uses "script", another runner\'s name for "tool_command"'],
  [
    'fabro-outcome-words.dot',
    'Fabro outcome words',
    'tests outcome=succeeded, Fabro\'s word for the status "success"',
  ],
  [
    'fabro-model-provider.dot',
    'Fabro model= / provider=',
    'uses "model", another runner\'s name for "llm_model"',
  ],
  [
    'fabro-child-workflow.dot',
    'Fabro stack.child_workflow',
    'another runner\'s name for "stack.child_dotfile"',
  ],
  ['amplifier-last-line.dot', 'Amplifier context.tool.last_line', 'a tool node here sets tool.last_line too'],
  [
    'amplifier-folder.dot',
    'Amplifier shape=folder + dot_file',
    'uses "dot_file", another runner\'s name for "graph_ref"',
  ],
  [
    'streamweave-exec.dot',
    'streamweave type="exec"',
    'has type="exec", another runner\'s way to write type="tool"',
  ],
  [
    'amplifier-manager.dot',
    'Amplifier manager attributes',
    'uses "max_cycles", another runner\'s name for "manager.max_cycles"',
  ],
  ['extended-conditions.dot', 'condition operators of spec §10.7', 'uses "||" in its condition'],
  ['amplifier-model-glob.dot', 'Amplifier model globs', 'is a glob, not a model id'],
  ['quoted-graph-id.dot', 'quoted graph ids', 'The graph id "sp-workflow" is a quoted string'],
  [
    'smaller-runner-values.dot',
    'goal_gate / weight values',
    'has weight="2.0", another runner\'s way to write weight="2"',
  ],
  ['kilroy-two-exits.dot', 'Kilroy two exit nodes', 'reaching any exit node ends the run'],
];

let cwd: string;

beforeAll(async () => {
  // A copy, so that the runs' .attractor directories stay out of the repository.
  cwd = await temporaryDirectory();
  await cp(join(FIXTURES, 'dialects'), cwd, { recursive: true });
});

describe('pipelines written for other runners (issue 19, docs/architecture.md "Dialect")', () => {
  it.each(DIALECTS)(
    '%s (%s) validates with a dialect_alias warning and a fix',
    async (file, _runner, warning) => {
      const result = await attractor(['validate', file], { cwd });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('warning[dialect_alias]');
      expect(result.stdout).toContain(warning);
      expect(result.stdout).toMatch(/^ {2}fix: \S/m);
      expect(result.stdout).not.toContain('error[');
    },
  );

  it.each(DIALECTS)('%s (%s) runs to the end with --dry-run --auto-approve', async (file) => {
    const result = await attractor(['run', file, '--dry-run', '--auto-approve'], { cwd });
    expect(result.stderr + result.stdout).toContain('Pipeline succeeded');
    expect(result.exitCode).toBe(0);
  });

  it.each(DIALECTS)('%s (%s) is refused under --strict', async (file) => {
    const result = await attractor(['run', file, '--dry-run', '--auto-approve', '--strict'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stdout + result.stderr).toContain('error[dialect_alias]');
  });
});
