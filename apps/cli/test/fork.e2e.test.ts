import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const PIPELINE = `digraph Forkable {
  goal="fork me"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [prompt="Plan"]
  build [prompt="Build"]
  polish [prompt="Polish"]
  start -> plan -> build -> exit
  build -> polish [condition="outcome=fail"]
  polish -> exit
}
`;

async function json<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

describe('attractor fork', () => {
  it('starts a new run after a completed stage, records its origin, and follows an edited graph', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'pipeline.dot'), PIPELINE);
    const first = await attractor(['run', 'pipeline.dot', '--simulate', '--logs-dir', 'source'], { cwd });
    expect(first.exitCode, first.stderr).toBe(0);
    const before = await readFile(join(cwd, 'source', 'checkpoints.jsonl'), 'utf8');

    const same = await attractor(['fork', 'source', '--at', 'plan@1', '--logs-dir', 'same'], { cwd });
    expect(same.exitCode, same.stderr).toBe(0);
    // It says it forked, from which run and stage; it resumed nothing.
    expect(same.stdout).toContain('▶ Forkable — fork me (forked from source at plan@1)');
    expect(same.stdout).not.toContain('resumed');
    // Its summary counts the stages it ran (build, exit), then the whole route with the ones it inherited (start, plan).
    expect(same.stdout).toMatch(
      /✔ Pipeline succeeded in \S+ \(2 stages this time; whole route: 4 stages, 2 inherited from the source run\)\n/,
    );
    const manifest = await json<{ forked_from: { node: string; visit: number; run_id: string } }>(
      join(cwd, 'same', 'manifest.json'),
    );
    expect(manifest.forked_from).toMatchObject({ run_id: 'source', node: 'plan', visit: 1 });
    const sameEnd = await json<{ completed_nodes: string[]; state: string }>(
      join(cwd, 'same', 'checkpoint.json'),
    );
    expect(sameEnd).toMatchObject({ state: 'success', completed_nodes: ['start', 'plan', 'build', 'exit'] });
    // inspect says where the fork came from and which stages it inherited.
    const inspected = await attractor(['inspect', 'same'], { cwd });
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    expect(inspected.stdout).toMatch(
      /^forked: {3}from source after plan@1 \(inherited completed: start, plan\)$/m,
    );
    expect(inspected.stdout).toContain('route: build → exit');
    const inspectedJson = await attractor(['inspect', 'same', '--json'], { cwd });
    expect(JSON.parse(inspectedJson.stdout)).toMatchObject({
      forkedFrom: { runId: 'source', logsRoot: join(cwd, 'source'), node: 'plan', visit: 1 },
      inheritedStages: ['start', 'plan'],
    });
    // render --run colours the inherited stages as completed, like the stages the fork ran itself.
    const rendered = await attractor(['render', 'pipeline.dot', '--run', 'same'], { cwd });
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    const classOf = (node: string) =>
      rendered.stdout.match(new RegExp(`<g id="[^"]*" class="([^"]*)">\\s*<title>${node}</title>`))?.[1];
    expect(['start', 'plan', 'build', 'exit', 'polish'].map(classOf)).toEqual([
      'node succeeded',
      'node succeeded',
      'node succeeded',
      'node succeeded',
      'node not_reached',
    ]);

    await writeFile(
      join(cwd, 'edited.dot'),
      PIPELINE.replace('start -> plan -> build -> exit', 'start -> plan -> polish -> build -> exit'),
    );
    const edited = await attractor(
      ['fork', 'source', '--at', 'plan', '--graph', 'edited.dot', '--logs-dir', 'edited'],
      { cwd },
    );
    expect(edited.exitCode, edited.stderr).toBe(0);
    const editedEnd = await json<{ completed_nodes: string[] }>(join(cwd, 'edited', 'checkpoint.json'));
    // The edited graph's polish stage ran; from it, the simulation takes the shortest way to the exit (polish -> exit).
    expect(editedEnd.completed_nodes).toEqual(['start', 'plan', 'polish', 'exit']);
    expect(await readFile(join(cwd, 'source', 'checkpoints.jsonl'), 'utf8')).toBe(before);
  });

  it('lists the stage it was taken after, and earlier ones, as inherited also when the fork runs them again', async () => {
    const cwd = await temporaryDirectory();
    // check fails once (no `done` file yet) and loops back to plan.
    await writeFile(
      join(cwd, 'loop.dot'),
      `digraph Loop {
  goal="loop once"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  plan [shape=parallelogram, tool_command="echo planned"]
  check [shape=parallelogram, tool_command="test -f done || { touch done; exit 1; }"]
  start -> plan -> check
  check -> plan [condition="outcome=fail"]
  check -> exit [condition="outcome=success"]
}
`,
    );
    const first = await attractor(['run', 'loop.dot', '--logs-dir', 'source'], { cwd });
    expect(first.exitCode, first.stderr).toBe(0);
    const cases: [string, string[]][] = [
      ['plan@1', ['start', 'plan']],
      ['check@1', ['start', 'plan', 'check']],
      ['plan@2', ['start', 'plan', 'check']],
    ];
    for (const [at, inherited] of cases) {
      await rm(join(cwd, 'done'), { force: true });
      const dir = `fork-${at.replace('@', '-')}`;
      const forked = await attractor(['fork', 'source', '--at', at, '--logs-dir', dir], { cwd });
      expect(forked.exitCode, forked.stderr).toBe(0);
      const inspected = await attractor(['inspect', dir], { cwd });
      expect(inspected.exitCode, inspected.stderr).toBe(0);
      expect(inspected.stdout.split('\n').find((line) => line.startsWith('forked:'))).toBe(
        `forked:   from source after ${at} (inherited completed: ${inherited.join(', ')})`,
      );
      const inspectedJson = await attractor(['inspect', dir, '--json'], { cwd });
      expect(JSON.parse(inspectedJson.stdout).inheritedStages).toEqual(inherited);
    }
  });

  it('--set starts the fork with edited context values, which route the stage again; refuses keys the engine sets', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'chooser.dot'),
      `digraph chooser {
        start [shape=Mdiamond]
        pick [prompt="Pick a side"]
        left [prompt="Go left"]
        right [prompt="Go right"]
        exit [shape=Msquare]
        start -> pick
        pick -> left [condition="context.choice=left"]
        pick -> right [condition="context.choice=right"]
        left -> exit
        right -> exit
      }`,
    );
    const first = await attractor(
      ['run', 'chooser.dot', '--simulate', '--set', 'choice=left', '--logs-dir', 'source'],
      { cwd },
    );
    expect(first.exitCode, first.stderr).toBe(0);
    const forked = await attractor(
      ['fork', 'source', '--at', 'pick', '--set', 'choice=right', '--set', 'tries=2', '--logs-dir', 'forked'],
      { cwd },
    );
    expect(forked.exitCode, forked.stderr).toBe(0);
    const end = await json<{ completed_nodes: string[]; context: Record<string, unknown> }>(
      join(cwd, 'forked', 'checkpoint.json'),
    );
    expect(end.completed_nodes).toEqual(['start', 'pick', 'right', 'exit']);
    expect(end.context).toMatchObject({ choice: 'right', tries: 2 });

    const refused = await attractor(['fork', 'source', '--at', 'pick', '--set', 'graph.goal=x'], { cwd });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      '--set: context key "graph.goal" mirrors a graph attribute: edit the attribute in the pipeline instead.',
    );
    expect(
      existsSync(join(cwd, '.attractor', 'runs')) ? await readdir(join(cwd, '.attractor', 'runs')) : [],
    ).toEqual([]);
  });

  it('refuses a stage the run never completed, listing the ones it did; exit 2', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'pipeline.dot'), PIPELINE);
    await attractor(['run', 'pipeline.dot', '--simulate', '--logs-dir', 'source'], { cwd });
    const result = await attractor(['fork', 'source', '--at', 'polish'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'has no checkpoint after that stage. Its completed stages: start@1, plan@1, build@1, exit@1.',
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Nor does it name the run directory it never made (third new-user trial).
    expect(`${result.stdout}${result.stderr}`).not.toContain('Run directory:');
    const unknown = await attractor(['fork', 'source', '--at', 'nope'], { cwd });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('has no checkpoint after that stage.');
    expect(`${unknown.stdout}${unknown.stderr}`).not.toContain('Run directory:');
    // The refused fork leaves no empty run directory behind (second new-user trial).
    const runs = join(cwd, '.attractor', 'runs');
    expect(existsSync(runs) ? await readdir(runs) : []).toEqual([]);
  });
});
