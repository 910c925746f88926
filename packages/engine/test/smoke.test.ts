import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestGraph } from '../src/test/graph-builder.js';
import { createScriptedHandler } from '../src/test/scripted-handler.js';
import { readEvents, readJson, registryWith, run } from './helpers.js';

describe('smoke', () => {
  it('runs a linear pipeline', async () => {
    const handler = createScriptedHandler();
    const graph = createTestGraph({ edges: ['start -> a -> b -> exit'] });
    const { result, logsRoot, events } = await run({ graph, registry: registryWith(handler) });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'a', 'b', 'exit']);
    expect(handler.nodeIds()).toEqual(['a', 'b']);
    expect(existsSync(join(logsRoot, 'a', 'status.json'))).toBe(true);
    expect(readJson<{ current_node: string }>(join(logsRoot, 'checkpoint.json')).current_node).toBe('exit');
    expect(readEvents(logsRoot).map((event) => event.seq)).toEqual(events.map((event) => event.seq));
  });
});
