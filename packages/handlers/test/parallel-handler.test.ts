import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CodergenBackend, Handler, HandlerRegistry } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import type { ParallelBranchResult } from '../src/parallel-results.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { deferred, delay, runDot } from './helpers.js';

const fanOut = (attributes: string, branches: string[], branchAttributes = '') => `digraph G {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fan [shape=component${attributes}]
  join [shape=tripleoctagon]
  ${branches.map((branch) => `${branch} [prompt="${branch}"${branchAttributes}]`).join('\n  ')}
  start -> fan
  ${branches.map((branch) => `fan -> ${branch} -> join`).join('\n  ')}
  join -> exit
}`;

function registryWith(handlers: Record<string, Handler>, backend?: CodergenBackend): HandlerRegistry {
  const registry = createDefaultRegistry(backend === undefined ? {} : { backend });
  for (const [type, handler] of Object.entries(handlers)) registry.register(type, handler);
  return registry;
}

function results(value: unknown): ParallelBranchResult[] {
  return value as ParallelBranchResult[];
}

describe('parallel and parallel.fan_in handlers (spec §4.8, §4.9, §11.6)', () => {
  it('fans out to every branch, joins at the fan-in and continues after it', async () => {
    const { result, logsRoot, events } = await runDot(fanOut('', ['a', 'b', 'c']), {
      backend: createSimulationBackend(),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'exit']);
    expect(
      results(result.context.get('parallel.results')).map((entry) => [entry.branch, entry.status]),
    ).toEqual([
      ['a', 'success'],
      ['b', 'success'],
      ['c', 'success'],
    ]);
    expect(result.context.get('parallel.outcome')).toBe('success');
    expect(result.context.get('parallel.success_count')).toBe(3);
    expect(result.context.get('parallel.failure_count')).toBe(0);
    expect(result.context.get('parallel.fan_in.best_id')).toBe('a');
    expect(existsSync(join(logsRoot, 'fan', 'branches', 'b', 'b', 'response.md'))).toBe(true);
    expect(events.filter((event) => event.type === 'parallel.branch.completed')).toHaveLength(3);
    expect(events.find((event) => event.type === 'parallel.completed')).toMatchObject({
      successCount: 3,
      failureCount: 0,
    });
  });

  it('never runs more than max_parallel=4 of 20 branches at once', async () => {
    let running = 0;
    let peak = 0;
    let ran = 0;
    const probe: Handler = {
      async execute() {
        running += 1;
        ran += 1;
        peak = Math.max(peak, running);
        // Hold the slot until the queue is full (or every branch has started), so the peak is measured under load:
        // with fewer than 4 running and branches left, the queue starts another, so this always ends.
        while (running < 4 && ran < 20) await delay(5);
        await delay(5);
        running -= 1;
        return { status: 'success' };
      },
    };
    const branches = Array.from({ length: 20 }, (_, index) => `b${index}`);
    const { result } = await runDot(fanOut(', max_parallel=4', branches, ', type="probe"'), {
      registry: registryWith({ probe }),
    });
    expect(result.status).toBe('success');
    expect(ran).toBe(20);
    expect(peak).toBe(4);
  });

  it('first_success aborts the other branches, which observe the abort', async () => {
    const slowStarted = [deferred(), deferred()];
    const observed: string[] = [];
    const probe: Handler = {
      async execute({ node, runtime }) {
        if (node.id === 'quick') {
          await Promise.all(slowStarted.map((started) => started.promise));
          return { status: 'success', contextUpdates: { winner: node.id } };
        }
        slowStarted[node.id === 'slow1' ? 0 : 1]!.resolve();
        await new Promise<void>((resolve) =>
          runtime.abortSignal.addEventListener('abort', () => resolve(), { once: true }),
        );
        observed.push(node.id);
        return { status: 'fail', failureReason: 'aborted' };
      },
    };
    const { result } = await runDot(
      fanOut(', join_policy=first_success', ['slow1', 'quick', 'slow2'], ', type="probe"'),
      {
        registry: registryWith({ probe }),
      },
    );
    expect(observed.sort()).toEqual(['slow1', 'slow2']);
    expect(result.context.get('parallel.outcome')).toBe('success');
    expect(results(result.context.get('parallel.results')).map((entry) => entry.status)).toEqual([
      'cancelled',
      'success',
      'cancelled',
    ]);
    expect(result.context.get('parallel.fan_in.best_id')).toBe('quick');
    expect(result.context.get('winner')).toBe('quick');
    expect(result.completedNodes).toEqual(['start', 'fan', 'join', 'exit']);
  });

  const outcomes = (failing: string[]): Handler => ({
    async execute({ node }) {
      return failing.includes(node.id)
        ? { status: 'fail', failureReason: `${node.id} broke`, retryable: false }
        : { status: 'success', contextUpdates: { [`seen.${node.id}`]: true } };
    },
  });

  it('wait_all reports partial_success when some branches fail, and the fan-in still picks a winner', async () => {
    const { result } = await runDot(fanOut('', ['a', 'b', 'c'], ', type="probe"'), {
      registry: registryWith({ probe: outcomes(['a']) }),
    });
    expect(result.nodeOutcomes.fan?.status).toBe('partial_success');
    expect(result.context.get('parallel.outcome')).toBe('partial_success');
    expect(result.context.get('parallel.failure_count')).toBe(1);
    const entries = results(result.context.get('parallel.results'));
    expect(entries[0]).toMatchObject({
      branch: 'a',
      status: 'fail',
      failure_reason: 'node "a" failed: a broke',
    });
    expect(result.context.get('parallel.fan_in.best_id')).toBe('b');
    expect(result.context.get('seen.b')).toBe(true);
    expect(result.context.get('seen.c')).toBeUndefined();
  });

  it('wait_all fails when every branch fails, and the fan-in fails too', async () => {
    const { result } = await runDot(fanOut('', ['a', 'b'], ', type="probe"'), {
      registry: registryWith({ probe: outcomes(['a', 'b']) }),
    });
    expect(result.nodeOutcomes.fan?.status).toBe('fail');
    expect(result.nodeOutcomes.join).toMatchObject({ status: 'fail' });
    expect(result.nodeOutcomes.join?.failureReason).toContain('all 2 parallel branches failed');
    expect(result.status).toBe('fail');
  });

  it('k_of_n succeeds with join_k successes and quorum needs a majority', async () => {
    const kOfN = await runDot(fanOut(', join_policy=k_of_n, join_k=2', ['a', 'b', 'c'], ', type="probe"'), {
      registry: registryWith({ probe: outcomes(['c']) }),
    });
    expect(kOfN.result.context.get('parallel.outcome')).toBe('success');
    const quorum = await runDot(fanOut(', join_policy=quorum', ['a', 'b', 'c'], ', type="probe"'), {
      registry: registryWith({ probe: outcomes(['b', 'c']) }),
    });
    expect(quorum.result.nodeOutcomes.fan?.status).toBe('fail');
    expect(quorum.result.nodeOutcomes.fan?.failureReason).toBe(
      '1 of 3 branches succeeded, 2 failed (join_policy=quorum, needed 2): b: node "b" failed: b broke; c: node "c" failed: c broke',
    );
  });

  it('branch_timeout fails a branch that runs too long', async () => {
    const probe: Handler = {
      async execute({ node, runtime }) {
        if (node.id === 'slow') {
          await new Promise<void>((resolve) =>
            runtime.abortSignal.addEventListener('abort', () => resolve(), { once: true }),
          );
        }
        return { status: 'success' };
      },
    };
    const { result } = await runDot(fanOut(', branch_timeout="100ms"', ['fast', 'slow'], ', type="probe"'), {
      registry: registryWith({ probe }),
    });
    const entries = results(result.context.get('parallel.results'));
    expect(entries[1]).toMatchObject({
      branch: 'slow',
      status: 'fail',
      failure_reason: 'branch_timeout after 100ms',
    });
    expect(result.context.get('parallel.outcome')).toBe('partial_success');
  });

  it('the fan-in asks the backend to judge when it has a prompt, and applies the winner', async () => {
    const prompts: string[] = [];
    const backend: CodergenBackend = {
      async run(request) {
        if (request.node.id === 'join') {
          prompts.push(request.prompt);
          return 'b\nIt finds the real bug.';
        }
        return `review by ${request.node.id}`;
      },
    };
    const source = fanOut('', ['a', 'b']).replace(
      'join [shape=tripleoctagon]',
      'join [shape=tripleoctagon, prompt="Pick the best review"]',
    );
    const { result } = await runDot(source, { backend });
    expect(prompts[0]).toContain('Pick the best review\n\n# Candidates\n\n## a (success)\n\nreview by a');
    expect(result.context.get('parallel.fan_in.best_id')).toBe('b');
    expect(result.context.get('last_response')).toBe('review by b');
    expect(result.nodeOutcomes.join?.notes).toBe('Selected best candidate: b (success, by LLM judge)');
  });

  it('runs nested parallel blocks inside their enclosing branch', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      outer [shape=component]
      inner [shape=component]
      inner_join [shape=tripleoctagon]
      outer_join [shape=tripleoctagon]
      x [prompt="x"]
      y [prompt="y"]
      solo [prompt="solo"]
      start -> outer
      outer -> inner
      outer -> solo
      inner -> x -> inner_join
      inner -> y -> inner_join
      inner_join -> outer_join
      solo -> outer_join
      outer_join -> exit
    }`;
    const { result, logsRoot } = await runDot(source, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'outer', 'outer_join', 'exit']);
    expect(results(result.context.get('parallel.results')).map((entry) => entry.branch)).toEqual([
      'inner',
      'solo',
    ]);
    expect(
      existsSync(join(logsRoot, 'outer', 'branches', 'inner', 'inner', 'branches', 'y', 'y', 'response.md')),
    ).toBe(true);
    expect(existsSync(join(logsRoot, 'outer', 'branches', 'inner', 'inner_join', 'status.json'))).toBe(true);
  });
});

describe('parallel branches without a fan-in', () => {
  it('continue at the exit the branches ran into, which the parent walk runs once', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      fan [shape=component]
      a [prompt="a"]
      b [prompt="b"]
      start -> fan
      fan -> a -> exit
      fan -> b -> exit
    }`;
    const { result } = await runDot(source, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fan', 'exit']);
    expect(result.nodeOutcomes.fan?.notes).toBe(
      '2 of 2 branches succeeded, 0 failed (join_policy=wait_all, needed 2); continuing at join "exit"',
    );
  });
});
