import { join } from 'node:path';
import { HandlerRegistry, type Interviewer, resumePipeline, runPipeline } from '@attractor/engine';
import { createScriptedHandler } from '@attractor/engine/test';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/inspect/summarize-run.js';
import { main } from '../src/main.js';
import { temporaryDirectory } from './helpers/cli.js';
import { createTestIo } from './helpers/test-io.js';

const SOURCE = `digraph Inspected {
  graph [goal="Show a run"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  plan  [prompt="Plan"]
  build [prompt="Build", max_retries=2]
  review [prompt="Review"]
  never [prompt="Never reached"]
  start -> plan -> build -> review
  review -> exit  [condition="outcome=success"]
  review -> never [condition="outcome=fail"]
  never -> exit
}
`;

let cwd: string;
let logsRoot: string;

beforeAll(async () => {
  cwd = await temporaryDirectory();
  logsRoot = join(cwd, 'runs', 'inspected');
  const { graph } = prepareGraph(SOURCE, { filename: 'inspected.dot' });
  const handler = createScriptedHandler({
    script: {
      plan: [
        (call) => {
          call.runtime.emit({ type: 'agent.usage', inputTokens: 1200, outputTokens: 300 });
          return { status: 'success' };
        },
      ],
      build: [{ status: 'fail', failureReason: 'compiler crashed' }, 'success'],
      review: [{ status: 'success', notes: `Reviewed 3 files:\n${'all fine '.repeat(12)}` }],
    },
  });
  const result = await runPipeline({
    graph: graph!,
    registry: new HandlerRegistry({ defaultHandler: handler }),
    logsRoot,
    workdir: cwd,
    clock: { now: () => 0, sleep: async () => {} },
  });
  expect(result.status).toBe('success');
});

describe('attractor inspect', () => {
  it('--json reports each stage with visits, attempts, status, tokens, and the route', async () => {
    const io = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', 'runs/inspected', '--json'], io })).toBe(0);
    const summary = JSON.parse(io.output()) as RunSummary;
    expect(summary.state).toBe('success');
    expect(summary.graphName).toBe('Inspected');
    expect(summary.route).toEqual(['start', 'plan', 'build', 'review', 'exit']);
    const build = summary.stages.find((stage) => stage.nodeId === 'build');
    expect(build).toMatchObject({ visits: 1, attempts: 2, state: 'success' });
    const plan = summary.stages.find((stage) => stage.nodeId === 'plan');
    expect(plan).toMatchObject({ inputTokens: 1200, outputTokens: 300 });
    expect(summary.inputTokens).toBe(1200);
    expect(summary.stages.some((stage) => stage.nodeId === 'never')).toBe(false);
    // The notes of the stage's outcome, as the live display shows them, in full.
    expect(summary.stages.find((stage) => stage.nodeId === 'review')?.notes).toBe(
      `Reviewed 3 files:\n${'all fine '.repeat(12)}`,
    );
    expect(build?.notes).toBeUndefined();
  });

  it('prints a table and the route', async () => {
    const io = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', logsRoot], io })).toBe(0);
    const text = io.output();
    expect(text).toMatch(/^Inspected {2}success$/m);
    expect(text).toMatch(
      /^stage\s+visits\s+status\s+attempts\s+duration\s+tokens\s+cost\s+failure\s+notes$/m,
    );
    // The notes on one line, cut at 60 characters.
    expect(text).toMatch(
      /^review\s+1\s+success\s+1\s+\S+\s+-\s+-\s+Reviewed 3 files: all fine all fine all fine all fine all f…$/m,
    );
    expect(text).toMatch(/^build\s+1\s+success\s+2\s/m);
    // The recorded usage carries no price: the cost is unknown, not $0.
    expect(text).toMatch(/^plan\s+1\s+success\s+1\s+\S+\s+1\.5k\s+unknown$/m);
    expect(text).toMatch(/^cost: {5}unknown$/m);
    expect(text).toContain('route: start → plan → build → review → exit');
  });

  it('exits 2 for a directory that is not a run directory', async () => {
    const io = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', '.'], io })).toBe(2);
    expect(io.errors()).toContain('. is not a run directory: it has no manifest.json.');
  });

  it('exits 2 for a DOT file, saying it is a file and how a DOT file is run', async () => {
    const io = createTestIo({ cwd });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(cwd, 'pipeline.dot'), SOURCE);
    expect(await main({ argv: ['inspect', 'pipeline.dot'], io })).toBe(2);
    expect(io.errors()).toContain(
      'pipeline.dot is a file, not a run directory. Runs are kept under ./.attractor/runs/ by default; pass one of those directories (a DOT file is started with `attractor run pipeline.dot`).',
    );
    expect(await main({ argv: ['resume', 'missing-run'], io: createTestIo({ cwd }) })).toBe(2);
  });
});

describe('attractor render --run', () => {
  it('fills nodes by their state in the run: succeeded green, not reached grey', async () => {
    const io = createTestIo({ cwd });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(cwd, 'inspected.dot'), SOURCE);
    expect(await main({ argv: ['render', 'inspected.dot', '--run', 'runs/inspected'], io })).toBe(0);
    const svg = io.output();
    const fillOf = (id: string): string | undefined =>
      new RegExp(`<title>${id}</title>\\s*<(?:polygon|ellipse|path)[^>]*fill="([^"]+)"`).exec(svg)?.[1];
    expect(fillOf('build')).toBe('#c8f2c2');
    expect(fillOf('never')).toBe('#eeeeee');
    expect(svg).toMatch(/<g id="node\d+" class="node succeeded">\s*<title>build<\/title>/);
    expect(svg).toMatch(/<g id="node\d+" class="node not_reached">\s*<title>never<\/title>/);
  });
});

describe('attractor inspect of a run continued by loop_restart (issue 19 bug 2)', () => {
  it('says the run restarted, names the directory that continues it, and offers no resume of the old one', async () => {
    const source = `digraph Restarting {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  work  [prompt="Work"]
  start -> work
  work -> work [condition="context.round=1", loop_restart=true]
  work -> exit [condition="context.round=2"]
}`;
    const { graph } = prepareGraph(source, { filename: 'restarting.dot' });
    let round = 0;
    const handler = createScriptedHandler({
      script: {
        work: [
          () => ({ status: 'success', contextUpdates: { round: ++round } }),
          () => ({ status: 'success', contextUpdates: { round: ++round } }),
        ],
      },
    });
    const root = join(cwd, 'runs', 'restarting');
    const result = await runPipeline({
      graph: graph!,
      registry: new HandlerRegistry({ defaultHandler: handler }),
      logsRoot: root,
      workdir: cwd,
      clock: { now: () => 0, sleep: async () => {} },
    });
    expect(result.logsRoot).toBe(`${root}-restart-1`);
    const json = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', 'runs/restarting', '--json'], io: json })).toBe(0);
    const summary = JSON.parse(json.output()) as RunSummary;
    expect(summary).toMatchObject({ state: 'restarted', restartedTo: result.logsRoot });
    expect(summary.nextNode).toBeUndefined();
    const text = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', 'runs/restarting'], io: text })).toBe(0);
    expect(text.output().split('\n')).toContain(
      'continued: runs/restarting-restart-1  (a loop_restart edge restarted the run there; attractor inspect runs/restarting-restart-1, or attractor resume either directory)',
    );
    expect(text.output()).not.toContain('next:');
    // Read by run id from a run store (here a directory of runs), the continuation is named by its id, and the
    // printed commands carry the store option the environment does not set (no queue is set: it resumes from the store).
    const byId = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', 'restarting', '--store', 'runs'], io: byId })).toBe(0);
    expect(byId.output().split('\n')).toContain(
      'continued: restarting-restart-1  (a loop_restart edge restarted the run there; attractor inspect restarting-restart-1 --store runs, or attractor resume restarting --store runs)',
    );
    const byIdJson = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', 'restarting', '--store', 'runs', '--json'], io: byIdJson })).toBe(
      0,
    );
    expect(JSON.parse(byIdJson.output())).toMatchObject({
      state: 'restarted',
      restartedTo: 'restarting-restart-1',
    });
  });
});

describe('attractor inspect: a gate the run was stopped at while it waited', () => {
  it('shows the gate resumed after the interruption as one visit of one attempt', async () => {
    const gateRoot = join(cwd, 'runs', 'gate');
    const { graph } = prepareGraph(
      `digraph Gate {
  start [shape=Mdiamond]
  done  [shape=Msquare]
  ask   [shape=hexagon, label="Ship it?"]
  start -> ask
  ask -> done [label="[Y] Yes"]
  ask -> start [label="[N] No"]
}
`,
      { filename: 'gate.dot' },
    );
    // The first leg is stopped while the gate waits for its answer (as Ctrl-C or a stopped server does).
    const controller = new AbortController();
    const waiting: Interviewer = {
      ask: (_question, options) =>
        new Promise((_resolve, reject) => {
          options?.abortSignal?.addEventListener('abort', () => reject(new Error('stopped')));
          setImmediate(() => controller.abort());
        }),
    };
    const first = await runPipeline({
      graph: graph!,
      registry: createDefaultRegistry(),
      logsRoot: gateRoot,
      workdir: cwd,
      interviewer: waiting,
      abortSignal: controller.signal,
    });
    expect(first.status).toBe('cancelled');
    const answering: Interviewer = {
      ask: async (question) => ({
        value: 'Y',
        selectedOption: question.options.find((option) => option.key === 'Y')!,
      }),
    };
    const resumed = await resumePipeline({
      graph: graph!,
      registry: createDefaultRegistry(),
      logsRoot: gateRoot,
      workdir: cwd,
      interviewer: answering,
    });
    expect(resumed.status).toBe('success');
    const io = createTestIo({ cwd });
    expect(await main({ argv: ['inspect', gateRoot, '--json'], io })).toBe(0);
    const summary = JSON.parse(io.output()) as RunSummary;
    expect(summary.route).toEqual(['start', 'ask', 'done']);
    expect(summary.stages.find((stage) => stage.nodeId === 'ask')).toMatchObject({
      visits: 1,
      attempts: 1,
      state: 'success',
    });
  });
});
