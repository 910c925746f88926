import { describe, expect, it } from 'vitest';
import { registryWith, run } from '../test/helpers.js';
import type { Handler } from './handler.js';
import { createTestGraph } from './test/graph-builder.js';

describe('yieldWhenBusy (issue 34 §11)', () => {
  it('lets timers and I/O run during a long walk of stages that answer at once', async () => {
    const ids = Array.from({ length: 1_500 }, (_, index) => `n${index}`);
    const graph = createTestGraph({ edges: [`start -> ${ids.join(' -> ')} -> exit`] });
    let completed = 0;
    let completedWhenTimerFired: number | undefined;
    const handler: Handler = {
      execute: async ({ node }) => {
        // Scheduled once the walk is under way: it fires at the first turn of the event loop the walk allows.
        if (node.id === 'n0') setTimeout(() => (completedWhenTimerFired = completed), 0);
        return { status: 'success' };
      },
    };
    const { result } = await run({
      graph,
      registry: registryWith(handler),
      maxSteps: 10_000,
      onEvent: (event) => {
        if (event.type === 'stage.completed') completed++;
      },
    });
    expect(result.status).toBe('success');
    expect(completed).toBeGreaterThan(1_500);
    expect(completedWhenTimerFired).toBeDefined();
    expect(completedWhenTimerFired).toBeLessThan(completed);
  });
});
