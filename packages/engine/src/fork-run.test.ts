import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, registryWith, tempDir } from '../test/helpers.js';
import { ContextValueError } from './errors/context-value-error.js';
import { ResumeError } from './errors/resume-error.js';
import { forkRun } from './fork-run.js';
import type { Handler } from './handler.js';
import type { PipelineEvent } from './pipeline-event.js';
import { runPipeline } from './run-pipeline.js';
import type { Checkpoint, RunManifest } from './run-store.js';
import { createTestGraph } from './test/graph-builder.js';
import { createTestClock } from './test/test-clock.js';

/** Counts work passes; `check` loops back to `work` until three passes are done. */
const counting: Handler = {
  execute: async ({ node, context }) => {
    if (node.id !== 'work') return { status: 'success' };
    const count = Number(context.get('context.count') ?? 0) + 1;
    return {
      status: 'success',
      contextUpdates: { 'context.count': count, 'context.more': count < 3 ? 'yes' : 'no' },
    };
  },
};

const loop = createTestGraph({
  id: 'loop',
  nodes: [{ id: 'check', shape: 'diamond' }],
  edges: [
    'start -> plan -> work -> check',
    { from: 'check', to: 'work', condition: 'context.more=yes' },
    { from: 'check', to: 'review', condition: 'context.more=no' },
    'review -> exit',
  ],
});

/** sha256 of every file under a directory, by relative path. */
function fingerprint(directory: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (path: string, prefix: string) => {
    for (const entry of readdirSync(path)) {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full, `${prefix}${entry}/`);
      else result[`${prefix}${entry}`] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(directory, '');
  return result;
}

async function finishedRun() {
  const logsRoot = join(tempDir(), 'source');
  const result = await runPipeline({
    graph: loop,
    registry: registryWith(counting),
    logsRoot,
    clock: createTestClock(),
  });
  expect(result.completedNodes).toEqual([
    'start',
    'plan',
    'work',
    'check',
    'work',
    'check',
    'work',
    'check',
    'review',
    'exit',
  ]);
  return { logsRoot, result };
}

describe('forkRun (docs/architecture.md "Checkpoint": fork from any checkpoint)', () => {
  it('from the middle of a finished run reaches the same end, leaving the source untouched', async () => {
    const source = await finishedRun();
    const before = fingerprint(source.logsRoot);
    const logsRoot = join(tempDir(), 'fork');
    const events: PipelineEvent[] = [];
    const forked = await forkRun({
      from: source.logsRoot,
      at: 'work@2',
      logsRoot,
      graph: loop,
      registry: registryWith(counting),
      onEvent: (event) => events.push(event),
    });
    // The start event says the run is a fork, from which run and stage (displays print it, not "resumed").
    expect(events.find((event) => event.type === 'pipeline.started')).toMatchObject({
      forkedFrom: { runId: 'source', node: 'work', visit: 2 },
      startNodeId: 'check',
    });
    expect(forked.status).toBe('success');
    expect(forked.completedNodes).toEqual(source.result.completedNodes);
    expect(forked.context.snapshot()).toEqual(source.result.context.snapshot());
    expect(fingerprint(source.logsRoot)).toEqual(before);
    const origin = { run_id: 'source', logs_root: source.logsRoot, checkpoint: 5, node: 'work', visit: 2 };
    expect(readJson<RunManifest>(join(logsRoot, 'manifest.json')).forked_from).toEqual(origin);
    expect(readJson<Checkpoint>(join(logsRoot, 'checkpoint.json')).origin).toEqual(origin);
  });

  it('takes a different route when the graph was edited', async () => {
    const source = await finishedRun();
    const edited = createTestGraph({
      id: 'loop',
      nodes: [{ id: 'check', shape: 'diamond' }],
      edges: [
        'start -> plan -> work -> check',
        { from: 'check', to: 'work', condition: 'context.more=yes' },
        { from: 'check', to: 'exit', condition: 'context.more=no' },
        'review -> exit',
      ],
    });
    const forked = await forkRun({
      from: source.logsRoot,
      at: 'check@3',
      logsRoot: join(tempDir(), 'fork'),
      graph: edited,
      registry: registryWith(counting),
    });
    expect(forked.status).toBe('success');
    expect(forked.completedNodes.slice(-2)).toEqual(['check', 'exit']);
    expect(forked.completedNodes).not.toContain('review');
  });

  it('starts from the checkpoint context plus edited values, routing the stage again with them', async () => {
    const source = await finishedRun();
    // After check@1 the source run went back to work (context.more=yes); the edited value sends the fork to review.
    const forked = await forkRun({
      from: source.logsRoot,
      at: 'check@1',
      logsRoot: join(tempDir(), 'fork'),
      graph: loop,
      registry: registryWith(counting),
      context: { 'context.more': 'no', 'context.note': { edited: true } },
    });
    expect(forked.status).toBe('success');
    expect(forked.completedNodes).toEqual(['start', 'plan', 'work', 'check', 'review', 'exit']);
    expect(forked.context.get('context.count')).toBe(1);
    expect(forked.context.get('context.note')).toEqual({ edited: true });
  });

  it('refuses a context value that is not JSON, naming the key, and writes nothing', async () => {
    const source = await finishedRun();
    const logsRoot = join(tempDir(), 'fork');
    const error = await forkRun({
      from: source.logsRoot,
      at: 'check@1',
      logsRoot,
      graph: loop,
      registry: registryWith(counting),
      context: { 'context.when': new Date(0) as unknown as string },
    }).catch((caught: unknown) => caught);
    expect(ContextValueError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('context.when');
    expect(existsSync(join(logsRoot, 'checkpoint.json'))).toBe(false);
  });

  it('refuses a stage the source run never completed, listing the ones it did', async () => {
    const source = await finishedRun();
    const error = await forkRun({
      from: source.logsRoot,
      at: 'work@4',
      logsRoot: join(tempDir(), 'fork'),
      graph: loop,
      registry: registryWith(counting),
    }).catch((caught: unknown) => caught);
    expect(ResumeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      'it has no checkpoint after that stage. Its completed stages: start@1, plan@1, work@1, check@1, work@2',
    );
  });
});
