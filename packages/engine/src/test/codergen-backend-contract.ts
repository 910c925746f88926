/**
 * The conformance kit for {@link CodergenBackend} implementations (CONTRIBUTING.md "Writing tests"). Call it
 * from a Vitest test file.
 */
import { describe, expect, it } from 'vitest';
import type { CodergenBackend, CodergenRequest } from '../codergen-backend.js';
import { Context } from '../context.js';
import type { EmittableEvent } from '../pipeline-event.js';
import { createTestGraph } from './graph-builder.js';

/** Options of {@link createTestCodergenRequest}: any request field. */
export type TestCodergenRequestOptions = Partial<CodergenRequest>;

/**
 * A complete {@link CodergenRequest} for a one-node graph (`start -> work -> exit`, node `work` with prompt
 * `Say hello`), `compact` fidelity, no steering. Override any field.
 */
export function createTestCodergenRequest(
  options: TestCodergenRequestOptions = {},
): CodergenRequest & { emitted: EmittableEvent[] } {
  const graph =
    options.graph ??
    createTestGraph({
      settings: { goal: 'greet' },
      nodes: [{ id: 'work', prompt: 'Say hello' }],
      edges: ['start -> work -> exit'],
    });
  const emitted: EmittableEvent[] = [];
  return {
    node: graph.node('work') ?? [...graph.nodes.values()][0]!,
    graph,
    prompt: 'Say hello',
    context: new Context({ 'graph.goal': graph.settings.goal }),
    fidelity: 'compact',
    threadKey: 'work',
    preamble: 'Goal: greet',
    abortSignal: new AbortController().signal,
    stageDir: '/tmp/attractor-test-stage',
    workdir: process.cwd(),
    emit: (event) => {
      emitted.push(event);
    },
    takeSteering: async () => [],
    ...options,
    emitted,
  };
}

/** Options of {@link describeCodergenBackendContract}. */
export interface CodergenBackendContractOptions {
  /** Creates a backend ready to answer `createTestCodergenRequest()` (e.g. against a scripted server). */
  readonly createBackend: () => CodergenBackend | Promise<CodergenBackend>;
  /** Extra request fields (stageDir, workdir) the backend needs. */
  readonly request?: () => TestCodergenRequestOptions | Promise<TestCodergenRequestOptions>;
}

/**
 * Registers Vitest tests every {@link CodergenBackend} must pass: it answers with a string or a valid Outcome, it
 * stops when the request's signal is already aborted (rejecting, or returning `fail`), and the events it emits are
 * stage-scoped events the engine can record.
 */
export function describeCodergenBackendContract(name: string, options: CodergenBackendContractOptions): void {
  describe(`CodergenBackend contract: ${name}`, () => {
    it('answers with a string or an Outcome with a status', async () => {
      const backend = await options.createBackend();
      const answer = await backend.run(createTestCodergenRequest(await options.request?.()));
      const valid =
        typeof answer === 'string' ||
        (typeof answer === 'object' &&
          answer !== null &&
          typeof answer.status === 'string' &&
          answer.status !== '');
      expect(valid, `backend answered ${JSON.stringify(answer)}`).toBe(true);
    });

    it('does not succeed when the signal is already aborted', async () => {
      const backend = await options.createBackend();
      const controller = new AbortController();
      controller.abort(new Error('cancelled by test'));
      const request = createTestCodergenRequest({
        ...(await options.request?.()),
        abortSignal: controller.signal,
      });
      const settled = await backend.run(request).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      if ('answer' in settled) {
        expect(typeof settled.answer === 'string' ? 'string' : settled.answer.status).toBe('fail');
      } else expect(settled.error).toBeDefined();
    });

    it('emits only events with a known stage-scoped type', async () => {
      const backend = await options.createBackend();
      const request = createTestCodergenRequest(await options.request?.());
      await backend.run(request);
      const allowed = [
        'agent.tool_call.started',
        'agent.tool_call.completed',
        'agent.text',
        'agent.usage',
        'agent.session.started',
        'stage.log',
        'stage.custom',
      ];
      for (const event of request.emitted) expect(allowed).toContain(event.type);
    });
  });
}
