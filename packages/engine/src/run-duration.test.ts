import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents, registryWith, tempDir } from '../test/helpers.js';
import type { Handler } from './handler.js';
import type { PipelineEvent } from './pipeline-event.js';
import { legDurationMs, runDurationMs } from './run-duration.js';
import { resumePipeline, runPipeline } from './run-pipeline.js';
import { createTestGraph } from './test/graph-builder.js';

/** Builds a run's log as the engine (and, for `pipeline.suspended`, the worker) writes it: seq, timestamp, runId. */
function log(runId: string, ...events: readonly Record<string, unknown>[]): PipelineEvent[] {
  return events.map(
    (fields, index) =>
      ({
        seq: index + 1,
        timestamp: new Date(Date.UTC(2026, 11, 2, 10, 0, index)).toISOString(),
        runId,
        ...fields,
      }) as PipelineEvent,
  );
}

const started = (resumed: boolean, startNodeId = 'start', branchPath?: readonly string[]) => ({
  type: 'pipeline.started',
  name: 'review',
  goal: 'ship it',
  logsRoot: '/runs/r1',
  resumed,
  startNodeId,
  ...(branchPath === undefined ? {} : { branchPath }),
});
const stage = (nodeId: string, durationMs: number, branchPath?: readonly string[]) => [
  {
    type: 'stage.started',
    nodeId,
    index: 1,
    visit: 1,
    attempt: 1,
    label: nodeId,
    handlerType: 'codergen',
    ...(branchPath === undefined ? {} : { branchPath }),
  },
  {
    type: 'stage.completed',
    nodeId,
    index: 1,
    visit: 1,
    attempt: 1,
    status: 'success',
    durationMs,
    ...(branchPath === undefined ? {} : { branchPath }),
  },
];
const question = { id: 'approve@1#1', type: 'yes_no', text: 'Ship?', options: [], stage: 'approve' };
const completed = (durationMs: number, branchPath?: readonly string[]) => ({
  type: 'pipeline.completed',
  durationMs,
  artifactCount: 0,
  completedCount: 3,
  ...(branchPath === undefined ? {} : { branchPath }),
});

describe('runDurationMs (spec §9.6)', () => {
  it.each<{ readonly name: string; readonly events: PipelineEvent[]; readonly durationMs: number }>([
    {
      name: 'a single leg: the completed event’s duration',
      events: log('r1', started(false), ...stage('plan', 40), completed(1_250)),
      durationMs: 1_250,
    },
    {
      name: 'a run failed, then resumed to success: both legs',
      events: log(
        'r1',
        started(false),
        ...stage('plan', 40),
        { type: 'pipeline.failed', error: 'no eligible edge from plan', durationMs: 300, nodeId: 'plan' },
        started(true, 'plan'),
        ...stage('plan', 35),
        completed(200),
      ),
      durationMs: 500,
    },
    {
      name: 'a run suspended at a human gate, then resumed: the suspended leg counts, the wait does not',
      events: log(
        'r1',
        started(false),
        ...stage('plan', 40),
        { type: 'interview.started', question, stage: 'approve' },
        { type: 'pipeline.suspended', stage: 'approve', question, durationMs: 30_000 },
        started(true, 'approve'),
        { type: 'interview.started', question, stage: 'approve' },
        {
          type: 'interview.completed',
          question,
          answer: { value: 'yes', text: 'yes' },
          durationMs: 1,
        },
        completed(24),
      ),
      durationMs: 30_024,
    },
    {
      name: 'a cancelled leg and a leg still running: only the ended leg',
      events: log(
        'r1',
        started(false),
        ...stage('plan', 40),
        { type: 'pipeline.cancelled', reason: 'Ctrl-C', durationMs: 900 },
        started(true, 'build'),
        {
          type: 'stage.started',
          nodeId: 'build',
          index: 2,
          visit: 1,
          attempt: 1,
          label: 'build',
          handlerType: 'tool',
        },
      ),
      durationMs: 900,
    },
    {
      name: 'a run still in its first leg: 0',
      events: log('r1', started(false), ...stage('plan', 40)),
      durationMs: 0,
    },
    {
      name: 'parallel branches’ and child pipelines’ ends end no leg of the run',
      events: log(
        'r1',
        started(false),
        ...stage('lint', 10, ['fan/a']),
        completed(10, ['fan/a']),
        started(false, 'start', ['child:review']),
        { type: 'pipeline.failed', error: 'x', durationMs: 70, branchPath: ['child:review'] },
        completed(400),
      ),
      durationMs: 400,
    },
    {
      name: 'a child pipeline’s own log, whose every event carries its parent’s path',
      events: log(
        'r1-child',
        started(false, 'start', ['child:review']),
        ...stage('check', 5, ['child:review']),
        completed(60, ['child:review', 'fan/a']),
        { type: 'pipeline.suspended', stage: 'ask', question, durationMs: 80, branchPath: ['child:review'] },
        started(true, 'ask', ['child:review']),
        completed(20, ['child:review']),
      ),
      durationMs: 100,
    },
    { name: 'no events: 0', events: [], durationMs: 0 },
  ])('sums $name', ({ events, durationMs }) => {
    expect(runDurationMs(events)).toBe(durationMs);
  });

  it('sums the legs of a real run cancelled at a stage and resumed to the exit', async () => {
    const graph = createTestGraph({ edges: ['start -> a -> b -> exit'] });
    const logsRoot = join(tempDir(), 'run');
    const controller = new AbortController();
    const slow: Handler = {
      execute: async ({ node }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (node.id === 'b' && !controller.signal.aborted) {
          controller.abort(new Error('stopped by the test'));
          return new Promise(() => undefined);
        }
        return { status: 'success' };
      },
    };
    const first = await runPipeline({
      graph,
      registry: registryWith(slow),
      logsRoot,
      abortSignal: controller.signal,
    });
    expect(first.status).toBe('cancelled');
    await resumePipeline({ graph, registry: registryWith(slow), logsRoot });

    const events = readEvents(logsRoot);
    const legEnds = events.flatMap((event) =>
      event.type === 'pipeline.cancelled' || event.type === 'pipeline.completed'
        ? [{ type: event.type, durationMs: event.durationMs }]
        : [],
    );
    expect(legEnds.map((end) => end.type)).toEqual(['pipeline.cancelled', 'pipeline.completed']);
    expect(legEnds.every((end) => end.durationMs > 0)).toBe(true);
    expect(runDurationMs(events)).toBe(legEnds[0]!.durationMs + legEnds[1]!.durationMs);
  });
});

describe('legDurationMs (spec §9.6)', () => {
  const [suspended, branchEnd, stageEnd] = log(
    'r1',
    { type: 'pipeline.suspended', stage: 'approve', question, durationMs: 30_000 },
    completed(10, ['fan/a']),
    ...stage('plan', 40).slice(1),
  ) as [PipelineEvent, PipelineEvent, PipelineEvent];

  it('gives the duration of the leg a top-level end closes', () => {
    expect(legDurationMs(suspended)).toBe(30_000);
  });

  it('gives undefined for a branch’s end and for events that end no leg', () => {
    expect(legDurationMs(branchEnd)).toBeUndefined();
    expect(legDurationMs(stageEnd)).toBeUndefined();
  });

  it('takes the ends at `basePath` as the top level', () => {
    expect(legDurationMs(branchEnd, { basePath: ['fan/a'] })).toBe(10);
    expect(legDurationMs(suspended, { basePath: ['fan/a'] })).toBeUndefined();
  });
});
