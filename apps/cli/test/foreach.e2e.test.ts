import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

/** Resolves once `ready()` is true, checking every 50 ms; throws after `timeoutMs` (a last-resort bound). */
async function waitUntil(ready: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** 50 file names; items 7, 23 and 41 are the ones whose check fails. */
const FILES = Array.from({ length: 50 }, (_, index) =>
  [7, 23, 41].includes(index) ? `bad-${index}.ts` : `file-${index}.ts`,
);
const FAILING = [7, 23, 41];

/**
 * A foreach over `state.files` whose body is a simulated LLM review of the item and a tool check that fails for
 * `bad-*` files and otherwise prints `{"name": <file>}`, mapped into the declared list `seen`.
 */
function reviewEach(onItemError: string): string {
  return `digraph ReviewEach {
  graph [state="files: append, results: append, seen: append", outputs="results, seen"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="state.files", as="file", max_parallel=5, on_item_error=${onItemError}, collect="results"]
  review [prompt="Review $item.file carefully."]
  check [shape=parallelogram, output_schema="name: string", out_map="name -> seen", tool_command="case \\"$item.file\\" in bad*) echo \\"broken $item.file\\" >&2; exit 3;; esac; printf '{\\"name\\":\\"%s\\"}' \\"$item.file\\""]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> review -> check -> join -> exit
}
`;
}

interface ForeachEvent {
  readonly type: string;
  readonly index?: number;
  readonly success?: boolean;
  /** The item, short, on `foreach.item.*` events. */
  readonly item?: string;
  readonly kept?: boolean;
  readonly keptCount?: number;
  readonly notStartedCount?: number;
  readonly successCount?: number;
  readonly failureCount?: number;
  readonly branchPath?: readonly string[];
  readonly nodeId?: string;
}

async function events(runDir: string): Promise<ForeachEvent[]> {
  const text = await readFile(join(runDir, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ForeachEvent);
}

/** The most items open at once (started, not completed), from the `foreach.item.*` events in order. */
function mostOpen(list: readonly ForeachEvent[]): number {
  let open = 0;
  let most = 0;
  for (const event of list) {
    if (event.type === 'foreach.item.started') most = Math.max(most, ++open);
    if (event.type === 'foreach.item.completed' && event.kept !== true) open--;
  }
  return most;
}

async function runEach(onItemError: string) {
  const cwd = await temporaryDirectory();
  await writeFile(join(cwd, 'each.dot'), reviewEach(onItemError));
  const result = await attractor(
    ['run', 'each.dot', '--simulate', '--set', `files=${JSON.stringify(FILES)}`, '--logs-dir', 'run'],
    { cwd },
  );
  return { cwd, result, runDir: join(cwd, 'run') };
}

interface ItemResult {
  readonly index: number;
  readonly item: string;
  readonly status: string;
  readonly failure_reason: string;
  readonly output: string;
  readonly updates: Record<string, unknown>;
}

describe('foreach over 50 items in parallel, 3 failing (README "Typed data")', () => {
  it('on_item_error=collect: every item runs in its own stage directories, results in item order with the 3 failures, the declared list merged in item order', async () => {
    const { result, runDir } = await runEach('collect');
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const output = JSON.parse(await readFile(join(runDir, 'output.json'), 'utf8')) as {
      results: ItemResult[];
      seen: string[];
    };
    expect(output.results.map((entry) => entry.index)).toEqual(FILES.map((_, index) => index));
    expect(output.results.map((entry) => entry.item)).toEqual(FILES);
    expect(output.results.filter((entry) => entry.status === 'fail').map((entry) => entry.index)).toEqual(
      FAILING,
    );
    expect(output.results[7]!.failure_reason).toContain('broken bad-7.ts');
    expect(output.results[8]).toMatchObject({
      status: 'success',
      output: '{"name":"file-8.ts"}',
      updates: { seen: 'file-8.ts' },
    });
    expect(output.seen).toEqual(FILES.filter((_, index) => !FAILING.includes(index)));
    // Each item's stages are in each/items/<n>/, the prompt with the item expanded.
    expect(await readFile(join(runDir, 'each', 'items', '12', 'review', 'prompt.md'), 'utf8')).toContain(
      'Review file-12.ts carefully.',
    );
    expect(await readdir(join(runDir, 'each', 'items'))).toHaveLength(50);
    const list = await events(runDir);
    const completed = list.filter((event) => event.type === 'foreach.item.completed');
    expect(completed).toHaveLength(50);
    expect(
      completed
        .filter((event) => event.success === false)
        .map((event) => event.index)
        .sort((a, b) => a! - b!),
    ).toEqual(FAILING);
    // The item events carry the item, short (the web UI lists it).
    expect(completed.find((event) => event.index === 12)?.item).toBe('file-12.ts');
    expect(list.find((event) => event.type === 'foreach.item.started' && event.index === 12)?.item).toBe(
      'file-12.ts',
    );
    // The item's own events carry items/<n> in branchPath.
    const checkOf23 = list.find(
      (event) =>
        event.type === 'stage.completed' && event.nodeId === 'check' && event.branchPath?.[0] === 'items/23',
    );
    expect(checkOf23).toBeDefined();
    // max_parallel=5: five items start at once, never more.
    expect(mostOpen(list)).toBe(5);
    expect(list.find((event) => event.type === 'foreach.completed')).toMatchObject({
      successCount: 47,
      failureCount: 3,
      notStartedCount: 0,
    });
  });

  it('on_item_error=skip: the failed items are left out of the results; the run succeeds', async () => {
    const { result, runDir } = await runEach('skip');
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const output = JSON.parse(await readFile(join(runDir, 'output.json'), 'utf8')) as {
      results: ItemResult[];
      seen: string[];
    };
    const kept = FILES.map((_, index) => index).filter((index) => !FAILING.includes(index));
    expect(output.results.map((entry) => entry.index)).toEqual(kept);
    expect(output.results.every((entry) => entry.status === 'success')).toBe(true);
    expect(output.seen).toEqual(kept.map((index) => FILES[index]));
  });

  it('on_item_error=fail: the first failure starts no further item and fails the run, naming the item; the finished items are recorded', async () => {
    const { result, runDir } = await runEach('fail');
    expect(result.exitCode).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'item 7: node "check" failed: command exited with code 3: broken bad-7.ts',
    );
    const list = await events(runDir);
    const done = list.find((event) => event.type === 'foreach.completed')!;
    expect(done.notStartedCount).toBeGreaterThan(0);
    expect(done.failureCount).toBe(1);
    // No item starts after the failing one completed.
    const failedAt = list.findIndex(
      (event) => event.type === 'foreach.item.completed' && event.success === false,
    );
    expect(list.slice(failedAt).some((event) => event.type === 'foreach.item.started')).toBe(false);
    const recorded = (await readdir(join(runDir, 'each', 'items'))).length;
    expect(recorded).toBe(done.successCount! + done.failureCount!);
    await expect(access(join(runDir, 'output.json'))).rejects.toThrow();
  });
});

describe('foreach mode=serial', () => {
  it('runs the items one after another in list order', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'serial.dot'),
      `digraph Serial {
  graph [inputs="words: string[]", state="results: append", outputs="results"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="input.words", mode=serial, collect="results"]
  say [shape=parallelogram, tool_command="sleep \\"0.$((5 - $(printf %s \\"$item.item\\" | wc -c)))\\"; echo \\"$item.item\\" >> order.txt; echo \\"$item.item\\""]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> say -> join -> exit
}
`,
    );
    // Longer words sleep less: in parallel they would finish in another order.
    const words = ['a', 'bb', 'ccc', 'dddd'];
    const result = await attractor(
      ['run', 'serial.dot', '--simulate', '--input', `words=${JSON.stringify(words)}`, '--logs-dir', 'run'],
      { cwd },
    );
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect((await readFile(join(cwd, 'order.txt'), 'utf8')).split('\n').filter(Boolean)).toEqual(words);
    const list = (await events(join(cwd, 'run'))).filter((event) => event.type.startsWith('foreach.item.'));
    expect(list.map((event) => `${event.type.slice('foreach.item.'.length)} ${event.index}`)).toEqual(
      words.flatMap((_, index) => [`started ${index}`, `completed ${index}`]),
    );
    expect(mostOpen(list)).toBe(1);
    const output = JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8')) as {
      results: ItemResult[];
    };
    expect(output.results.map((entry) => entry.output.trim())).toEqual(words);
  });
});

describe('foreach and resume', () => {
  it('after kill -9 of the CLI in the middle of a foreach, resume runs only the unfinished item', {
    timeout: 240_000,
  }, async () => {
    const cwd = await temporaryDirectory();
    const items = Array.from({ length: 10 }, (_, index) => `i${index}`);
    await writeFile(
      join(cwd, 'resume.dot'),
      `digraph Resume {
  graph [state="results: append", outputs="results"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="state.items", max_parallel=2, collect="results"]
  work [shape=parallelogram, tool_command="echo \\"$item.item\\" >> ran.txt; if [ \\"$item.item\\" = i5 ] && [ ! -f release ]; then touch blocked; sleep 600; fi; echo \\"done $item.item\\""]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> work -> join -> exit
}
`,
    );
    const runDir = join(cwd, 'run');
    const child = attractor(
      ['run', 'resume.dot', '--simulate', '--set', `items=${JSON.stringify(items)}`, '--logs-dir', 'run'],
      { cwd },
    );
    // Item i5 blocks; the other slot runs every other item to the end.
    const others = items.map((_, index) => index).filter((index) => index !== 5);
    await waitUntil(
      async () =>
        (await exists(join(cwd, 'blocked'))) &&
        (
          await Promise.all(
            others.map((index) => exists(join(runDir, 'each', 'items', String(index), 'result.json'))),
          )
        ).every(Boolean),
      'nine items finished and i5 blocked',
    );
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    await writeFile(join(cwd, 'release'), '');
    const before = (await events(runDir)).length;

    const resumed = await attractor(['resume', 'run'], { cwd });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    // Every item ran once, i5 twice (killed, then again): no finished item ran again.
    const ran = (await readFile(join(cwd, 'ran.txt'), 'utf8')).split('\n').filter(Boolean).sort();
    expect(ran).toEqual([...items, 'i5'].sort());
    const leg = (await events(runDir)).slice(before);
    expect(leg.find((event) => event.type === 'foreach.started')?.keptCount).toBe(9);
    expect(leg.filter((event) => event.type === 'foreach.item.started').map((event) => event.index)).toEqual([
      5,
    ]);
    expect(
      leg
        .filter((event) => event.type === 'foreach.item.completed' && event.kept === true)
        .map((event) => event.index),
    ).toEqual(others);
    const output = JSON.parse(await readFile(join(runDir, 'output.json'), 'utf8')) as {
      results: ItemResult[];
    };
    expect(output.results.map((entry) => entry.output.trim())).toEqual(items.map((item) => `done ${item}`));
  });

  it('a run failed by an item under on_item_error=fail resumes with the finished items kept and the results collected once', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'fix.dot'),
      `digraph Fix {
  graph [state="results: append", outputs="results"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="files", mode=serial, collect="results"]
  check [shape=parallelogram, tool_command="echo $item.item >> ran.txt; if [ $item.item = b ] && [ ! -f fixed ]; then exit 3; fi; echo ok $item.item"]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> check -> join -> exit
}
`,
    );
    const failed = await attractor(
      ['run', 'fix.dot', '--simulate', '--set', 'files=["a","b","c","d","e"]', '--logs-dir', 'run'],
      { cwd },
    );
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout + failed.stderr).toContain(
      '1 of 5 items succeeded, 1 failed, 3 not started (on_item_error=fail): item 1:',
    );
    // The lines of an item's stages name the item, on the run's output and in inspect's rows.
    expect(failed.stdout).toMatch(/^ {2}✔ check \[0\] /m);
    expect(failed.stdout).toMatch(/^ {2}✖ check \[1\] fail /m);
    // The resume hint says what resuming does: item 1 runs again, and fails again unless its cause is fixed.
    expect(failed.stdout).toMatch(/^ {2}resume with: {3}attractor resume run$/m);
    expect(failed.stdout).toContain(
      '(resuming runs foreach "each" again: it keeps the 1 item that succeeded and runs item 1 (failed) and the 3 not started; unless what made item 1 fail is fixed or was passing, it fails the same way.)',
    );
    const inspected = await attractor(['inspect', 'run'], { cwd });
    expect(inspected.stdout).toMatch(/^ {2}check \[0\] +1 +success /m);
    expect(inspected.stdout).toMatch(/^ {2}check \[1\] +1 +fail /m);
    await writeFile(join(cwd, 'fixed'), '');
    const resumed = await attractor(['resume', 'run'], { cwd });
    expect(resumed.exitCode, resumed.stdout + resumed.stderr).toBe(0);
    expect((await readFile(join(cwd, 'ran.txt'), 'utf8')).split('\n').filter(Boolean)).toEqual([
      'a',
      'b',
      'b',
      'c',
      'd',
      'e',
    ]);
    const output = JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8')) as {
      results: ItemResult[];
    };
    expect(output.results.map((entry) => entry.output.trim())).toEqual([
      'ok a',
      'ok b',
      'ok c',
      'ok d',
      'ok e',
    ]);
  });
});

describe('foreach in a git workspace (README "Workspaces")', () => {
  it('runs each item in a worktree of its own and merges them at the fan-in', async () => {
    const repo = await temporaryDirectory('attractor-foreach-ws-');
    const git = (...args: string[]) => execa('git', args, { cwd: repo, stripFinalNewline: true });
    await git('init', '-q', '-b', 'main');
    await git('config', 'user.name', 'Test User');
    await git('config', 'user.email', 'user@example.com');
    await writeFile(join(repo, '.gitignore'), '.attractor/\n');
    await writeFile(
      join(repo, 'ws.dot'),
      `digraph Ws {
  graph [state="files: append", workspace=git]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="files", as="f"]
  write [shape=parallelogram, tool_command="echo \\"$item.f\\" > \\"$item.f.txt\\""]
  join [shape=tripleoctagon, join_merge=git]
  check [shape=parallelogram, tool_command="cat a.txt b.txt c.txt"]
  start -> each -> write -> join -> check -> exit
}
`,
    );
    await git('add', '-A');
    await git('commit', '-q', '-m', 'initial');
    const runDir = join(await temporaryDirectory(), 'run');
    const result = await attractor(
      ['run', 'ws.dot', '--simulate', '--set', 'files=["a","b","c"]', '--logs-dir', runDir],
      { cwd: repo, env: { ATTRACTOR_WORKSPACE: 'auto' } },
    );
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(await readFile(join(runDir, 'check', 'stdout.txt'), 'utf8')).toBe('a\nb\nc\n');
    const branches = (await git('branch', '--list', '--format=%(refname:short)')).stdout.split('\n');
    expect(
      branches.filter((branch) => branch.includes('@each/items/')).map((branch) => branch.split('@')[1]),
    ).toEqual(['each/items/0', 'each/items/1', 'each/items/2']);
  });
});

/**
 * Runs `parent.dot`, a foreach over `files` ["x", "y"] (item `f`, `collect="results"`) whose body is `sub`, a
 * sub-pipeline node running `child.dot` with `subAttributes`, in a fresh directory (run directory `run`).
 */
async function runForeachOfChild(options: {
  readonly child: string;
  readonly graphAttributes: string;
  readonly subAttributes: string;
  readonly args?: readonly string[];
}) {
  const cwd = await temporaryDirectory();
  await writeFile(join(cwd, 'child.dot'), options.child);
  await writeFile(
    join(cwd, 'parent.dot'),
    `digraph Parent {
  graph [${options.graphAttributes}]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="state.files", as="f", collect="results"]
  sub [type="subgraph", graph_ref="child.dot"${options.subAttributes}]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> sub -> join -> exit
}
`,
  );
  const result = await attractor(
    ['run', 'parent.dot', ...(options.args ?? []), '--set', 'files=["x","y"]', '--logs-dir', 'run'],
    { cwd },
  );
  expect(result.exitCode, result.stdout + result.stderr).toBe(0);
  return { cwd, runDir: join(cwd, 'run') };
}

describe('foreach with a sub-pipeline as its body', () => {
  it('runs the DOT file once per item, the child seeing the item as $item.<as>', async () => {
    const { cwd, runDir } = await runForeachOfChild({
      child: `digraph Child {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  say [shape=parallelogram, tool_command="echo child sees $item.f"]
  start -> say -> exit
}
`,
      graphAttributes: 'state="files: append, results: append", outputs="results"',
      subAttributes: '',
      args: ['--simulate'],
    });
    for (const [index, item] of ['x', 'y'].entries()) {
      expect(
        await readFile(
          join(runDir, 'each', 'items', String(index), 'sub', 'child', 'say', 'stdout.txt'),
          'utf8',
        ),
      ).toBe(`child sees ${item}\n`);
    }
    // attractor inspect shows each stage's notes: here the sub-pipeline node's, naming the child run.
    const inspected = await attractor(['inspect', runDir, '--json'], { cwd });
    const summary = JSON.parse(inspected.stdout) as {
      stages: { nodeId: string; branchPath: string[]; notes?: string }[];
    };
    const subs = summary.stages.filter((stage) => stage.nodeId === 'sub');
    expect(subs.map((stage) => [stage.branchPath.join('/'), stage.notes?.split(':')[0]])).toEqual([
      ['items/0', 'Sub-pipeline child.dot completed (3 stages)'],
      ['items/1', 'Sub-pipeline child.dot completed (3 stages)'],
    ]);
    const text = (await attractor(['inspect', runDir], { cwd })).stdout;
    expect(text).toMatch(/^\s+sub \[0\]\s.*\sSub-pipeline child\.dot completed \(3 stages\): .*…$/m);
  });

  it("collect records each item's output: the output of a child that declares outputs, as JSON", async () => {
    // Once the records of a sub-pipeline body had an empty output: it was read from response.md or stdout.txt only.
    const { runDir } = await runForeachOfChild({
      child: `digraph Child {
  graph [outputs="verdict"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  judge [shape=parallelogram, output_schema="verdict: string", out_map="verdict -> verdict", tool_command="printf '{\\"verdict\\":\\"ok %s\\"}' \\"$item.f\\""]
  start -> judge -> exit
}
`,
      graphAttributes:
        'state="files: append, results: append, verdicts: append", outputs="results, verdicts"',
      subAttributes: ', out_map="verdict -> verdicts"',
    });
    const output = JSON.parse(await readFile(join(runDir, 'output.json'), 'utf8')) as {
      results: ItemResult[];
      verdicts: string[];
    };
    expect(output.verdicts).toEqual(['ok x', 'ok y']);
    expect(output.results.map((entry) => [entry.item, entry.status, JSON.parse(entry.output)])).toEqual([
      ['x', 'success', { verdict: 'ok x' }],
      ['y', 'success', { verdict: 'ok y' }],
    ]);
  });
});

describe('foreach branch_timeout', () => {
  it('fails an item that runs longer, and on_item_error=collect records it', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'slow.dot'),
      `digraph Slow {
  graph [state="results: append", outputs="results"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  each [type="foreach", over="delays", branch_timeout=2s, on_item_error=collect, collect="results"]
  wait [shape=parallelogram, tool_command="sleep $item.item; echo slept $item.item"]
  join [shape=tripleoctagon, join_merge=none]
  start -> each -> wait -> join -> exit
}
`,
    );
    const result = await attractor(
      ['run', 'slow.dot', '--simulate', '--set', 'delays=[0, 60]', '--logs-dir', 'run'],
      { cwd },
    );
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const output = JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8')) as {
      results: ItemResult[];
    };
    expect(output.results.map((entry) => entry.status)).toEqual(['success', 'fail']);
    expect(output.results[1]!.failure_reason).toContain('branch_timeout after 2s');
  });
});
