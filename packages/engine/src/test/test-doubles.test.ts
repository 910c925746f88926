import { describe, expect, it } from 'vitest';
import { Context } from '../context.js';
import { HandlerRegistry } from '../handler-registry.js';
import { runPipeline } from '../run-pipeline.js';
import { createTestGraph } from './graph-builder.js';
import { createMemoryRunStore } from './memory-run-store.js';
import { createScriptedHandler } from './scripted-handler.js';
import { createScriptedInterviewer } from './scripted-interviewer.js';
import { createTestClock } from './test-clock.js';
import { createTestRuntime } from './test-runtime.js';

describe('@attractor/engine/test doubles', () => {
  it('createTestClock advances on sleep and records durations', async () => {
    const clock = createTestClock({ startMs: 1000 });
    await clock.sleep(250);
    expect(clock.now()).toBe(1250);
    expect(clock.sleeps).toEqual([250]);
  });

  it('createTestClock in manual mode resolves sleeps on advance()', async () => {
    const clock = createTestClock({ autoAdvance: false });
    let done = false;
    const sleeping = clock.sleep(100).then(() => {
      done = true;
    });
    await clock.advance(99);
    expect(done).toBe(false);
    await clock.advance(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it('createScriptedInterviewer answers in order, then skipped', async () => {
    const interviewer = createScriptedInterviewer(['yes']);
    const question = { id: 'q', text: 't', type: 'yes_no' as const, options: [], stage: 's' };
    expect(await interviewer.ask(question)).toEqual({ value: 'yes' });
    expect(await interviewer.ask(question)).toEqual({ value: 'skipped' });
  });

  it('createTestRuntime records emitted events and rejects runBranch', async () => {
    const runtime = createTestRuntime();
    runtime.emit({ type: 'stage.log', level: 'info', message: 'hi' });
    expect(runtime.emitted).toEqual([{ type: 'stage.log', level: 'info', message: 'hi' }]);
    await expect(
      runtime.runBranch({ startNodeId: 'a', context: new Context(), branchId: 'x' }),
    ).rejects.toThrow(/runPipeline/);
  });

  it('createMemoryRunStore runs a whole pipeline without files', async () => {
    const store = createMemoryRunStore();
    const graph = createTestGraph({ edges: ['start -> a -> exit'] });
    const result = await runPipeline({
      graph,
      registry: new HandlerRegistry({ defaultHandler: createScriptedHandler() }),
      logsRoot: '/memory/run',
      createRunStore: () => store,
      clock: createTestClock(),
    });
    expect(result.status).toBe('success');
    expect(store.checkpoints.at(-1)?.state).toBe('success');
    expect(store.statuses.get('a')).toEqual({ outcome: 'success' });
    expect(store.events.at(-1)?.type).toBe('pipeline.completed');
  });
});
