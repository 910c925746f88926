#!/usr/bin/env node
// The workspace's costs against plain git (issue "Runs that can be trusted with a real repository", README of this
// package): on a generated repository of 10,000 files / 50 MB,
//   1. starting a run workspace (capture + worktree) vs a plain `git worktree add`;
//   2. a stage's commit (commitStage) vs a plain `git add -A && git commit` of the same change;
//   3. a chain of no-op tool stages with a git workspace vs in place (the extra cost per stage), split into the
//      workspace's start (its `open`, once per run) and what the stages cost after it (its `commitStage` timed apart).
// Usage: pnpm bench [-- --files 10000 --bytes 5000 --rounds 5 --stages 1000 --chain-rounds 4]. Needs `pnpm build`
// first.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runPipeline } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { execa } from 'execa';

// BENCH_WORKSPACE: another build of this package to measure (e.g. the code before a change), by path.
const { createWorkspaceProvider } = await import(process.env.BENCH_WORKSPACE ?? '@attractor/workspace');

// `pnpm bench -- --rounds 3` passes the `--` on (pnpm 10 and later): it is dropped.
const args = process.argv.slice(2);
const { values } = parseArgs({
  args: args[0] === '--' ? args.slice(1) : args,
  options: {
    files: { type: 'string', default: '10000' },
    bytes: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '5' },
    stages: { type: 'string', default: '1000' },
    'chain-rounds': { type: 'string', default: '4' },
  },
});
const FILES = Number(values.files);
const BYTES = Number(values.bytes);
const ROUNDS = Number(values.rounds);
const STAGES = Number(values.stages);
const CHAIN_ROUNDS = Number(values['chain-rounds']);
const ENV = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@localhost',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@localhost',
};
const git = (cwd, ...args) => execa('git', ['-c', 'gc.auto=0', ...args], { cwd, env: ENV });
const now = () => performance.now();
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

const root = mkdtempSync(join(tmpdir(), 'attractor-ws-bench-'));
const repo = join(root, 'repo');
mkdirSync(repo);
await git(repo, 'init', '-q', '-b', 'main');
writeFileSync(join(repo, '.gitignore'), '.attractor/\n');
const perDir = 100;
for (let index = 0; index < FILES; index += 1) {
  const dir = join(repo, `d${Math.floor(index / perDir)}`);
  if (index % perDir === 0) mkdirSync(dir);
  writeFileSync(join(dir, `f${index % perDir}.txt`), randomBytes(BYTES / 2).toString('hex'));
}
await git(repo, 'add', '-A');
await git(repo, 'commit', '-q', '-m', 'generated');
// A user's uncommitted edit, as a run usually finds the checkout.
writeFileSync(join(repo, 'd0', 'f0.txt'), 'edited\n');
const mb = ((FILES * BYTES) / 1e6).toFixed(0);
console.log(`repository: ${FILES} files, ${mb} MB (${root})`);

// 1. Starting a workspace vs git worktree add.
const plainStart = [];
const workspaceStart = [];
const provider = createWorkspaceProvider({ mode: 'git' });
const graph = prepareGraph('digraph b { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }').graph;
const opened = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const plainPath = join(root, `plain-${round}`);
  let started = now();
  await git(repo, 'worktree', 'add', '-q', '-b', `plain-${round}`, plainPath, 'HEAD');
  plainStart.push(now() - started);
  const logsRoot = join(root, 'runs', `run-${round}`);
  started = now();
  const result = await provider.open({
    runId: `run-${round}`,
    logsRoot,
    workdir: repo,
    graph,
    resumed: false,
    store: undefined,
    abortSignal: new AbortController().signal,
  });
  workspaceStart.push(now() - started);
  opened.push({ workspace: result.workspace, plainPath });
}

// 2. A stage's commit vs git add -A && git commit, for the same change (20 files edited, 5 added).
const change = (dir, round) => {
  const dirs = Math.ceil(FILES / perDir);
  for (let index = 0; index < 20; index += 1) {
    writeFileSync(join(dir, `d${index % dirs}`, `f${1 + Math.floor(index / dirs)}.txt`), `round ${round}\n`);
  }
  for (let index = 0; index < 5; index += 1) writeFileSync(join(dir, `new-${round}-${index}.txt`), 'new\n');
};
const plainCommit = [];
const stageCommit = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const { workspace, plainPath } = opened[round];
  change(plainPath, round);
  let started = now();
  await git(plainPath, 'add', '-A');
  await git(plainPath, 'commit', '-q', '-m', 'stage');
  plainCommit.push(now() - started);
  change(workspace.workdir, round);
  started = now();
  const done = await workspace.commitStage({
    nodeId: 'edit',
    stagePath: 'edit',
    visit: 1,
    attempt: 1,
    status: 'success',
    runId: `run-${round}`,
  });
  stageCommit.push(now() - started);
  if (done.commit === undefined) throw new Error('the stage commit made no commit');
}
for (const { workspace } of opened) await workspace.close();

// 3. A chain of no-op tool stages, git workspace vs in place.
const chain = [
  'digraph chain {',
  '  start [shape=Mdiamond]',
  ...Array.from({ length: STAGES }, (_, index) => `  s${index} [shape=parallelogram, tool_command="true"]`),
  '  exit [shape=Msquare]',
  `  start -> ${Array.from({ length: STAGES }, (_, index) => `s${index}`).join(' -> ')} -> exit`,
  '}',
].join('\n');
const chainGraph = prepareGraph(chain).graph;
/**
 * A provider whose workspace's start (`open`) and per-stage hook (`commitStage`) are timed, so that the chain's extra
 * cost splits into what a run pays once and what each stage pays.
 */
const timedProvider = (provider, times) => ({
  ...provider,
  async open(request) {
    const started = now();
    const opened = await provider.open(request);
    times.openMs = now() - started;
    const workspace = opened?.workspace;
    if (workspace !== undefined) {
      const commitStage = workspace.commitStage.bind(workspace);
      workspace.commitStage = async (stage) => {
        const begun = now();
        try {
          return await commitStage(stage);
        } finally {
          times.hookMs += now() - begun;
          times.hooks += 1;
        }
      };
    }
    return opened;
  },
});
const timeChain = async (name, mode) => {
  const times = { openMs: 0, hookMs: 0, hooks: 0 };
  // When each stage completed: the median gap between two is what a stage costs, whatever a moment of load cost.
  const completed = [];
  const started = now();
  const result = await runPipeline({
    onEvent: (event) => {
      if (event.type === 'stage.completed') completed.push(now());
    },
    graph: chainGraph,
    registry: createDefaultRegistry(),
    workdir: repo,
    logsRoot: join(root, 'runs', name),
    maxSteps: STAGES + 10,
    // As the CLI's --workspace in-place / --workspace git.
    workspace: timedProvider(createWorkspaceProvider({ mode }), times),
  });
  if (result.status !== 'success') throw new Error(`${name}: ${result.failureReason}`);
  const stageMs = median(completed.slice(1).map((at, index) => at - completed[index]));
  return { ms: now() - started, stageMs, ...times };
};
// In place and git alternate, each first every other round, so that a change of the machine's load during the
// benchmark weighs on both alike; each pair's difference is one sample. `sync` before each run (not timed): the 50 MB
// a git run's checkout wrote are on disk before the next run starts, rather than written back during it.
const chainRounds = [];
for (let round = 0; round < CHAIN_ROUNDS; round += 1) {
  const timeSynced = async (mode) => {
    await execa('sync');
    return timeChain(`chain-${mode}-${round}`, mode);
  };
  const [inPlace, git] =
    round % 2 === 0
      ? [await timeSynced('in-place'), await timeSynced('git')]
      : [await timeSynced('git'), await timeSynced('in-place')].reverse();
  if (git.hooks !== STAGES) throw new Error(`${git.hooks} stage commits for ${STAGES} stages`);
  chainRounds.push({
    inPlace: inPlace.ms / STAGES,
    git: git.ms / STAGES,
    extra: (git.ms - inPlace.ms) / STAGES,
    start: git.openMs / STAGES,
    stages: (git.ms - git.openMs - inPlace.ms) / STAGES,
    stageGap: git.stageMs - inPlace.stageMs,
    hook: git.hookMs / git.hooks,
  });
}
const chainMedian = (key) => median(chainRounds.map((round) => round[key])).toFixed(1);
const signed = (key) => (chainMedian(key).startsWith('-') ? '' : '+') + chainMedian(key);

const rows = [
  [
    'start a workspace',
    `git worktree add: ${median(plainStart).toFixed(0)} ms`,
    `workspace: ${median(workspaceStart).toFixed(0)} ms`,
    `${(median(workspaceStart) / median(plainStart)).toFixed(2)}x (target <= 2x)`,
  ],
  [
    'commit a stage (25 files)',
    `git add -A && git commit: ${median(plainCommit).toFixed(0)} ms`,
    `commitStage: ${median(stageCommit).toFixed(0)} ms`,
    `${(median(stageCommit) / median(plainCommit)).toFixed(2)}x (target <= 1.5x)`,
  ],
  [
    `${STAGES} no-op tool stages`,
    `in place: ${chainMedian('inPlace')} ms/stage`,
    `git: ${chainMedian('git')} ms/stage`,
    `${signed('extra')} ms/stage (target <= 5 ms): the start (open, once) ${chainMedian('start')} ms/stage, the stages after it ${signed('stages')} ms/stage (median gap between two stages ${signed('stageGap')} ms; commitStage of a no-op stage ${chainMedian('hook')} ms)`,
  ],
];
console.log(
  `medians of ${ROUNDS} rounds (the chain: of ${CHAIN_ROUNDS} runs each, in place and git alternating, each first every other round)`,
);
for (const row of rows) console.log(row.join(' | '));
console.log(
  `the chain's pairs (git minus in place, ms per stage): ${chainRounds.map((round) => round.extra.toFixed(1)).join(', ')}; median gaps: ${chainRounds.map((round) => round.stageGap.toFixed(1)).join(', ')}`,
);
rmSync(root, { recursive: true, force: true });
