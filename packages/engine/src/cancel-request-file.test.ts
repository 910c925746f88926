import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryWith, tempDir } from '../test/helpers.js';
import { CANCEL_REQUEST_FILE, requestRunCancel } from './cancel-request-file.js';
import type { Handler } from './handler.js';
import { startPipeline } from './run-pipeline.js';
import { createTestGraph } from './test/graph-builder.js';
import { createTestClock } from './test/test-clock.js';

/** Succeeds at once, except on node `b`, which runs until the run is aborted (after calling `onStart`). */
function blockingAt(onStart: () => void): Handler {
  return {
    execute: ({ node, runtime }) => {
      if (node.id !== 'b') return Promise.resolve({ status: 'success' });
      onStart();
      return new Promise((_, reject) =>
        runtime.abortSignal.addEventListener('abort', () => reject(runtime.abortSignal.reason)),
      );
    },
  };
}

describe('cancel-request.json: cancelling a run directory from another process (issue 34 §6)', () => {
  it('cancels the run that holds the directory, with the request reason, and keeps its checkpoint', async () => {
    const logsRoot = tempDir();
    const run = startPipeline({
      graph: createTestGraph({ edges: ['start -> a -> b -> exit'] }),
      registry: registryWith(blockingAt(() => requestRunCancel({ logsRoot, reason: 'stopped by ops' }))),
      logsRoot,
      clock: createTestClock(),
    });
    const result = await run.result;
    expect(result.status).toBe('cancelled');
    expect(result.failureReason).toBe('stopped by ops');
    expect(result.completedNodes).toEqual(['start', 'a']);
    expect(existsSync(join(logsRoot, CANCEL_REQUEST_FILE))).toBe(false);
  });

  it('removes a request older than the runner and runs on', async () => {
    const logsRoot = tempDir();
    mkdirSync(logsRoot, { recursive: true });
    requestRunCancel({ logsRoot, reason: 'for a runner long gone', requestedAt: '2020-01-01T00:00:00.000Z' });
    const run = startPipeline({
      graph: createTestGraph({ edges: ['start -> a -> exit'] }),
      registry: registryWith({ execute: async () => ({ status: 'success' }) }),
      logsRoot,
    });
    expect((await run.result).status).toBe('success');
    expect(existsSync(join(logsRoot, CANCEL_REQUEST_FILE))).toBe(false);
  });
});
