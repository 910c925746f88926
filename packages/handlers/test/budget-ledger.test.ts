/**
 * The run's budget with concurrent parallel branches: one ledger for the whole run, checked before every model call
 * with what every branch spent so far. The backend double stands for the model: each "call" asks
 * `usage.checkBudget()` first, then waits until the test releases it, then reports its usage (`agent.usage`), as
 * the real backends do.
 */
import {
  BudgetExceededError,
  type CodergenBackend,
  type CodergenRequest,
  resumePipeline,
} from '@attractor/engine';
import { graphFrom } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { deferred, runDot } from './helpers.js';

const PIPELINE = `digraph Budget {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  fan   [shape=component, max_parallel=3]
  a [prompt="a"]
  b [prompt="b"]
  c [prompt="c"]
  join [shape=tripleoctagon]
  start -> fan
  fan -> a -> join
  fan -> b -> join
  fan -> c -> join
  join -> exit
}`;

/**
 * A backend whose stages make `callsPerStage` model calls of $0.10 each. A call that passed the budget check waits
 * until `release()`, which answers every waiting call at once (each reports its usage) before any goes on.
 */
function gatedBackend(callsPerStage: number) {
  let gate = deferred();
  let waiting: (() => void)[] = [];
  let arrived = deferred();
  const calls: string[] = [];
  const backend: CodergenBackend = {
    async run(request: CodergenRequest) {
      for (let call = 1; call <= callsPerStage; call++) {
        request.usage?.checkBudget();
        calls.push(`${request.node.id}#${call}`);
        waiting.push(() =>
          request.emit({ type: 'agent.usage', inputTokens: 1000, outputTokens: 100, costUsd: 0.1 }),
        );
        arrived.resolve();
        await gate.promise;
      }
      return `done ${request.node.id}`;
    },
  };
  return {
    backend,
    calls,
    /** Resolves once `count` calls are waiting for their answer. */
    async waitFor(count: number) {
      while (waiting.length < count) {
        await arrived.promise;
        arrived = deferred();
      }
    },
    /** Answers every waiting call. */
    release() {
      for (const answer of waiting) answer();
      waiting = [];
      const open = gate;
      gate = deferred();
      open.resolve();
    },
  };
}

describe('the run budget with concurrent branches (one ledger per run)', () => {
  it('every branch sees what the others spent: after three concurrent calls ($0.30 > $0.25) no branch makes a second call, and the run stops at the fan-out', async () => {
    const model = gatedBackend(2);
    const running = runDot(PIPELINE, {
      registry: createDefaultRegistry({ backend: model.backend }),
      backend: model.backend,
      maxBudgetUsd: 0.25,
    });
    // All three branches passed the check with nothing spent, and wait in their first call.
    await model.waitFor(3);
    model.release();
    const { result, events } = await running;

    expect(model.calls.sort()).toEqual(['a#1', 'b#1', 'c#1']);
    expect(result.status).toBe('fail');
    expect(result.failureReason).toMatch(
      /^budget max_budget_usd=0\.25 spent: the model calls cost \$0\.3000 before a model call of LLM stage "[abc]"/,
    );
    expect(result.budgetStop).toMatchObject({ budget: 'max_budget_usd', limit: 0.25, when: 'call' });
    expect(result.budgetStop?.spent).toBeCloseTo(0.3, 10);
    expect(result.context.get('usage.total.cost_usd')).toBeCloseTo(0.3, 10);
    expect(result.context.get('usage.total.total_tokens')).toBe(3300);
    // A refused stage is not retried, and the run never reached the fan-in.
    expect(events.filter((event) => event.type === 'stage.retrying')).toHaveLength(0);
    expect(result.completedNodes).not.toContain('join');
  });

  it('resumed with a bigger budget, the fan-out runs again only what did not finish, and the totals go on from the checkpoint', async () => {
    const model = gatedBackend(1);
    // $0.15: a and b pass the check at $0 and spend $0.20; c, started after them (max_parallel=1 would order it, here
    // the gate does), is refused.
    const first = runDot(PIPELINE.replace('max_parallel=3', 'max_parallel=2'), {
      registry: createDefaultRegistry({ backend: model.backend }),
      backend: model.backend,
      maxBudgetUsd: 0.15,
    });
    await model.waitFor(2);
    model.release();
    const { result, logsRoot, workdir } = await first;
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain('before LLM stage "c"');
    expect(model.calls.sort()).toEqual(['a#1', 'b#1']);

    const again = gatedBackend(1);
    const resuming = resumePipeline({
      graph: graphFrom(PIPELINE.replace('max_parallel=3', 'max_parallel=2')),
      registry: createDefaultRegistry({ backend: again.backend }),
      backend: again.backend,
      logsRoot,
      workdir,
      maxBudgetUsd: 1,
    });
    await again.waitFor(1);
    again.release();
    const resumed = await resuming;
    expect(resumed.status).toBe('success');
    expect(again.calls).toEqual(['c#1']);
    expect(resumed.context.get('usage.total.cost_usd')).toBeCloseTo(0.3, 10);
    expect(resumed.context.get('parallel.success_count')).toBe(3);
  });

  it('a backend refusal is a BudgetExceededError: not retryable, with the stop', () => {
    const error = new BudgetExceededError({
      budget: 'max_tokens',
      limit: 10,
      spent: 12,
      nodeId: 'a',
      when: 'call',
      reason: 'budget max_tokens=10 spent',
    });
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.retryable).toBe(false);
  });
});
