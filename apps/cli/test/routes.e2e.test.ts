/**
 * Simulation that finds its way and route coverage (issue 33): `run --dry-run` reaches the exit of pipelines whose
 * edges test what a stage said, and `attractor test --routes` takes every edge of the examples and names the edge a
 * pipeline built to have one cannot take. Through the built binary, offline.
 */
import { readdirSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import type { RouteCoverageReport } from '../src/routes/cover-routes.js';
import { attractor, PIPELINES, temporaryDirectory } from './helpers/cli.js';

const corpusDir = corpusDotDirectory('the simulation tests of the CLI on the corpus');

/** The JSON events of a `run --json` that are `stage.log` messages saying which edge a stage aimed for. */
function aims(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; nodeId?: string; message?: string })
    .filter((event) => event.type === 'stage.log' && /aims for/.test(event.message ?? ''))
    .map((event) => `${event.nodeId}: ${event.message}`);
}

function completed(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; nodeId?: string; branchPath?: string[] })
    .filter((event) => event.type === 'stage.completed' && event.branchPath === undefined)
    .map((event) => event.nodeId!);
}

const LOOPS = `digraph Loops {
  graph [goal="Ship a reviewed change"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  plan  [prompt="Plan the change. Say PLAN_READY when the plan is complete."]
  implement [prompt="Implement the plan"]
  check [shape=parallelogram, tool_command="npm test"]
  judge [prompt="Score the change"]
  start -> plan
  plan -> plan [condition="context.last_response !contains PLAN_READY", label="not ready"]
  plan -> implement [condition="context.last_response contains PLAN_READY"]
  implement -> check
  check -> judge [condition="outcome=success"]
  check -> implement [condition="outcome=fail"]
  judge -> exit [condition="preferred_label=scored"]
  judge -> implement [condition="preferred_label!=scored"]
}
`;

describe('run --dry-run finds its way', () => {
  it('answers contains, label and loop conditions so the run reaches the exit, and says which edge each stage aimed for', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'loops.dot'), LOOPS);
    const result = await attractor(['run', 'loops.dot', '--dry-run', '--json'], { cwd });
    // Only the warnings that contains and !contains go beyond spec §10.2.
    expect(result.stderr).not.toMatch(/error/);
    expect(result.exitCode).toBe(0);
    expect(completed(result.stdout)).toEqual(['start', 'plan', 'implement', 'check', 'judge', 'exit']);
    expect(aims(result.stdout)).toEqual([
      'plan: [Simulated] aims for plan -> implement [context.last_response contains PLAN_READY]: outcome success, sets last_response',
      'judge: [Simulated] aims for judge -> exit [preferred_label=scored]: outcome success, preferred label "scored"',
    ]);
    // The same seed takes the same route; --seed is recorded for resume.
    const again = await attractor(
      ['run', 'loops.dot', '--dry-run', '--json', '--seed', '7', '--logs-dir', 'run'],
      {
        cwd,
      },
    );
    expect(completed(again.stdout)).toEqual(['start', 'plan', 'implement', 'check', 'judge', 'exit']);
    expect(JSON.parse(await readFile(join(cwd, 'run', 'cli-options.json'), 'utf8'))).toMatchObject({
      dryRun: true,
      seed: 7,
    });
  });

  it('keeps --simulate-script steps exactly: a scripted node takes its steps, the others find their way', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'loops.dot'), LOOPS);
    await writeFile(
      join(cwd, 'script.json'),
      JSON.stringify({ check: ['fail', 'success'], judge: ['success'] }),
    );
    const result = await attractor(
      ['run', 'loops.dot', '--dry-run', '--simulate-script', 'script.json', '--json'],
      { cwd },
    );
    // judge's scripted plain success routes on preferred_label!=scored: back to implement, then it finds its way.
    expect(completed(result.stdout)).toEqual([
      'start',
      'plan',
      'implement',
      'check',
      'implement',
      'check',
      'judge',
      'implement',
      'check',
      'judge',
      'exit',
    ]);
    expect(result.exitCode).toBe(0);
  });
});

describe('attractor test --routes', () => {
  it('takes every edge of every example (loops twice) and reaches every gate', async () => {
    const names = (await readdir(PIPELINES)).filter((name) => name.endsWith('.dot')).sort();
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const name of names) {
      const result = await attractor(['test', join(PIPELINES, name), '--routes', '--json']);
      const report = JSON.parse(result.stdout) as RouteCoverageReport;
      expect(
        report.edges.filter((edge) => edge.state !== 'taken'),
        name,
      ).toEqual([]);
      expect(
        report.gates.filter((gate) => !gate.reached),
        name,
      ).toEqual([]);
      expect(report.complete, name).toBe(true);
      expect(result.exitCode, name).toBe(0);
    }
  });

  it('names the edge that cannot be taken and the gate behind it, and exits 1', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'shadowed.dot'),
      `digraph Shadowed {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  review [prompt="Review the change"]
  ship_gate [shape=hexagon, label="Ship it?"]
  start -> review
  review -> exit [condition="outcome=success"]
  review -> ship_gate [condition="outcome=success"]
  review -> review [condition="outcome=fail", label="again"]
  ship_gate -> exit [label="[Y] Yes"]
}
`,
    );
    const text = await attractor(['test', 'shadowed.dot', '--routes'], { cwd });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain('Route coverage of shadowed.dot: 3 of 5 edges taken in ');
    expect(text.stdout).toContain(
      'Edges that cannot be taken:\n  shadowed.dot:8: review -> ship_gate [outcome=success]: whenever it could be taken, review -> exit [outcome=success] is chosen instead: equal weights go to the target id first in order ("exit" before "ship_gate") (spec §3.3)',
    );
    expect(text.stdout).toContain(
      'Edges never taken:\n  shadowed.dot:10: ship_gate -> exit "[Y] Yes": no run reached "ship_gate"',
    );
    expect(text.stdout).toContain('Gates never reached:\n  shadowed.dot:5: ship_gate');
    expect(text.stdout).toContain('✖ Route coverage incomplete: 2 edges not covered, 1 gate never reached.');
    const json = await attractor(['test', 'shadowed.dot', '--json'], { cwd });
    expect(json.exitCode).toBe(1);
    const report = JSON.parse(json.stdout) as RouteCoverageReport & { file: string };
    expect(report.file).toBe('shadowed.dot');
    expect(report.complete).toBe(false);
    expect(report.edges.map((edge) => [edge.from, edge.to, edge.state, edge.taken, edge.wanted])).toEqual([
      ['start', 'review', 'taken', 2, 1],
      ['review', 'exit', 'taken', 2, 1],
      ['review', 'ship_gate', 'cannot-be-taken', 0, 1],
      ['review', 'review', 'taken', 2, 2],
      ['ship_gate', 'exit', 'never-taken', 0, 1],
    ]);
  });

  it('takes the inputs a graph declares like run does, and refuses missing ones with a user error (exit 2)', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'typed.dot'),
      `digraph Typed {
  graph [goal="Greet $input.name", inputs="name: string, count: integer"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  greet [prompt="Greet $input.name $input.count times"]
  start -> greet -> exit
}
`,
    );
    const missing = await attractor(['test', 'typed.dot', '--routes'], { cwd });
    expect(missing.stderr).not.toContain('unexpected error');
    expect(missing.stderr).toMatch(/error:.*name/s);
    expect(missing.stderr).toContain('--input name=value');
    expect(missing.exitCode).toBe(2);
    const wrongType = await attractor(['test', 'typed.dot', '--input', 'name=Ada', '--input', 'count=many'], {
      cwd,
    });
    expect(wrongType.stderr).toContain('count');
    expect(wrongType.exitCode).toBe(2);
    await writeFile(join(cwd, 'inputs.json'), JSON.stringify({ name: 'Ada' }));
    const given = await attractor(
      ['test', 'typed.dot', '--routes', '--inputs-file', 'inputs.json', '--input', 'count=3'],
      { cwd },
    );
    expect(given.stderr).not.toContain('error');
    expect(given.stdout).toContain('✔ Every edge taken');
    expect(given.exitCode).toBe(0);
  });

  it('says in its help that it exits non-zero when coverage is incomplete', async () => {
    const help = await attractor(['test', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 coverage complete, 1 incomplete');
  });
});

const corpusFiles = (corpusDir === undefined ? [] : readdirSync(corpusDir))
  .filter((name) => name.endsWith('.dot'))
  .sort();

describe.skipIf(corpusDir === undefined)("simulation on the corpus of other runners' pipelines", () => {
  /** Not run at all, with why. */
  const notRun: Record<string, string> = {
    // Its sub-pipeline ../review-core/pipeline.dot is not part of the corpus: lint refuses the missing file.
    'allouis__attractor__plan-build-review-pipeline.dot': 'graph_ref',
    // Its child workflow implement-and-test.fabro is not part of the corpus either.
    'fabro-sh__fabro__sub-workflow.dot': 'manager_child_dotfile',
  };
  /** --auto-approve answers each gate with its first option; these loop on it (the route test answers by route). */
  const firstOptionLoops = new Set(['citadelgrad__pascals-discrete-attractor__plan-to-execute.dot']);

  it('has the corpus files', () => {
    expect(corpusFiles.length).toBeGreaterThanOrEqual(25);
  });

  it.each(corpusFiles)('%s reaches the exit in a dry run, and in a route test', async (name) => {
    const cwd = await temporaryDirectory();
    const file = join(corpusDir!, name);
    if (name in notRun) {
      const refused = await attractor(['run', file, '--dry-run', '--auto-approve'], { cwd });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(notRun[name]);
      return;
    }
    if (!firstOptionLoops.has(name)) {
      const run = await attractor(['run', file, '--dry-run', '--auto-approve', '-q'], { cwd });
      expect(run.stdout).toMatch(/✔ Pipeline succeeded/);
      expect(run.exitCode).toBe(0);
    }
    const test = await attractor(['test', file, '--json', '--max-runs', '3'], { cwd });
    const report = JSON.parse(test.stdout) as RouteCoverageReport;
    expect(report.runs.some((run) => run.status === 'success')).toBe(true);
  });
});
