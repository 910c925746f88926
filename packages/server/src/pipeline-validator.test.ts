import { createDefaultRegistry } from '@attractor/handlers';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors/api-error.js';
import { DEFAULT_PIPELINE_LIMITS, type PipelineLimits } from './pipeline-limits.js';
import {
  createPipelineValidator,
  type PipelineToPrepare,
  type PipelineValidator,
} from './pipeline-validator.js';

const registry = createDefaultRegistry();
const handlers: PipelineToPrepare['handlers'] = {
  types: [...registry.types()],
  lintInfo: registry.lintInfo(),
  handlerTypeOf: (graph, nodeId) => graph.handlerType(graph.node(nodeId)!),
};

const dot = (goal: string) =>
  `digraph P { graph [goal="${goal}"]; start [shape=Mdiamond]; work [prompt="Do $goal"]; done [shape=Msquare]; start -> work -> done }`;

let validator: PipelineValidator | undefined;
afterEach(async () => {
  await validator?.close();
  validator = undefined;
});

function create(limits: Partial<PipelineLimits> = {}): PipelineValidator {
  validator = createPipelineValidator({
    limits: { ...DEFAULT_PIPELINE_LIMITS, ...limits },
    allowTools: false,
  });
  return validator;
}

describe('createPipelineValidator (issue 34 §11)', () => {
  it('queues pipelines instead of refusing them, and refuses with 503 SERVER_BUSY and Retry-After only past maxQueuedValidations', async () => {
    const validating = create({ maxQueuedValidations: 2 });
    // One runs, two wait: the fourth finds the queue full.
    const answers = [0, 1, 2, 3, 4].map((index) =>
      validating.prepare({ source: dot(`g${index}`), filename: 'p.dot', handlers }),
    );
    expect(validating.load).toEqual({ waiting: 2, running: 1 });
    const settled = await Promise.allSettled(answers);
    expect(settled.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    const refusal = (settled[3] as PromiseRejectedResult).reason as ApiError;
    expect(ApiError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({
      status: 503,
      code: 'SERVER_BUSY',
      details: { limit: 'maxQueuedValidations' },
    });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.message).toMatch(/^The server is busy: 2 pipelines are waiting to be validated/);
    expect(validating.load).toEqual({ waiting: 0, running: 0 });
  });

  it('gives the runs of one pipeline one graph, and parses a changed pipeline again', async () => {
    const validating = create();
    const first = await validating.prepare({ source: dot('a'), filename: 'p.dot', handlers });
    const again = await validating.prepare({ source: dot('a'), filename: 'p.dot', handlers });
    const other = await validating.prepare({ source: dot('b'), filename: 'p.dot', handlers });
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(other.settings.goal).toBe('b');
  });

  it('validates a large pipeline in a worker thread and rebuilds the same graph here', async () => {
    // Over inProcessBytes: the worker parses it and sends the graph back as JSON.
    const stages = Array.from({ length: 60 }, (_, index) => `s${index}`);
    const source = `digraph Big {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${stages.map((id) => `  ${id} [prompt="${'x'.repeat(40)}"]`).join('\n')}\n  start -> ${stages.join(' -> ')} -> done\n}\n`;
    const validating = create({ inProcessBytes: 100 });
    const graph = await validating.prepare({ source, filename: 'big.dot', handlers });
    expect(graph.nodes.size).toBe(62);
    expect(graph.source).toBe(source);
    expect(graph.outgoing('s0').map((edge) => edge.to)).toEqual(['s1']);
    expect(graph.node('s59')?.span?.start).toMatchObject({ line: 63, column: 3 });
    expect(graph.startNode?.id).toBe('start');
    // An invalid one is refused with its diagnostics, as on this thread.
    const refused = await validating
      .prepare({ source: source.replace('s59 -> done', 's59 -> nowhere'), filename: 'big.dot', handlers })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_PIPELINE' });
  });
});
