/** Spec §11.6 Node Handlers: one test per checkbox, with the built-in handlers of @attractor/handlers. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CodergenBackend, CodergenRequest, Handler, Question } from '@attractor/engine';
import { createTestRuntime } from '@attractor/engine/test';
import {
  createCallbackInterviewer,
  createDefaultRegistry,
  createExitHandler,
  createStartHandler,
  readParallelResults,
} from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { graphFrom, readJson, readText, runDot, tempDir } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

/** A backend that records each request and answers with a fixed text. */
function recordingBackend(text: string): CodergenBackend & { requests: CodergenRequest[] } {
  const requests: CodergenRequest[] = [];
  return {
    requests,
    async run(request) {
      requests.push(request);
      return text;
    },
  };
}

/** A handler that succeeds only once `count` calls are in flight at the same time (fails after 5 s otherwise). */
function latchHandler(count: number): Handler & { maxInFlight: () => number } {
  let inFlight = 0;
  let maxInFlight = 0;
  const waiting: (() => void)[] = [];
  return {
    maxInFlight: () => maxInFlight,
    async execute({ node }) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (inFlight >= count) for (const release of waiting.splice(0)) release();
      else {
        const released = await new Promise<boolean>((resolve) => {
          waiting.push(() => resolve(true));
          setTimeout(() => resolve(false), 30_000);
        });
        if (!released)
          return { status: 'fail', failureReason: `${node.id} never saw ${count} concurrent branches` };
      }
      inFlight -= 1;
      return { status: 'success', contextUpdates: { [`done.${node.id}`]: true } };
    },
  };
}

const ONE_NODE = 'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }';

describe('§11.6 Node Handlers', () => {
  it('**Start handler:** Returns SUCCESS immediately (no-op)', async () => {
    const graph = graphFrom(ONE_NODE);
    const backend = recordingBackend('unused');
    const outcome = await createStartHandler().execute({
      node: graph.node('start')!,
      context: new (await import('@attractor/engine')).Context(),
      graph,
      logsRoot: tempDir(),
      runtime: createTestRuntime({ backend }),
    });
    expect(outcome.status).toBe('success');
    expect(backend.requests).toHaveLength(0);
  });

  it('**Exit handler:** Returns SUCCESS immediately (no-op, engine checks goal gates)', async () => {
    const graph = graphFrom(ONE_NODE);
    const outcome = await createExitHandler().execute({
      node: graph.node('exit')!,
      context: new (await import('@attractor/engine')).Context(),
      graph,
      logsRoot: tempDir(),
      runtime: createTestRuntime(),
    });
    expect(outcome.status).toBe('success');
    const { result } = await runDot(ONE_NODE);
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'exit']);
  });

  it('**Codergen handler:** Expands `$goal` in prompt, calls `CodergenBackend.run()`, writes prompt.md and response.md to stage dir', async () => {
    const backend = recordingBackend('Here is the plan.');
    const { result, logsRoot } = await runDot(
      `digraph G {
        graph [goal="Create a hello world script"]
        start [shape=Mdiamond]; exit [shape=Msquare]
        plan [prompt="Plan how to do: $goal"]
        start -> plan -> exit
      }`,
      { backend },
    );
    expect(result.status).toBe('success');
    expect(backend.requests).toHaveLength(1);
    expect(backend.requests[0]!.prompt).toContain('Plan how to do: Create a hello world script');
    expect(readText(join(logsRoot, 'plan', 'prompt.md'))).toContain(
      'Plan how to do: Create a hello world script',
    );
    expect(readText(join(logsRoot, 'plan', 'response.md'))).toContain('Here is the plan.');
    expect(result.context.get('last_response')).toContain('Here is the plan.');
  });

  it('**Wait.human handler:** Presents outgoing edge labels as choices to the interviewer, returns selected label as preferred_label', async () => {
    const questions: Question[] = [];
    const interviewer = createCallbackInterviewer({
      ask: (question) => {
        questions.push(question);
        const option = question.options[1]!;
        return { value: option.key, selectedOption: option };
      },
    });
    const { result, logsRoot } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        gate [shape=hexagon, label="Ship it?"]
        ship [prompt="s"]; fix [prompt="f"]
        start -> gate
        gate -> ship [label="[A] Approve"]
        gate -> fix [label="[R] Request changes"]
        ship -> exit; fix -> exit
      }`,
      { interviewer },
    );
    expect(questions).toHaveLength(1);
    expect(questions[0]!.text).toContain('Ship it?');
    expect(questions[0]!.type).toBe('multiple_choice');
    expect(questions[0]!.options.map((option) => option.label)).toEqual([
      '[A] Approve',
      '[R] Request changes',
    ]);
    expect(result.completedNodes).toEqual(['start', 'gate', 'fix', 'exit']);
    expect(result.nodeOutcomes.gate).toMatchObject({
      status: 'success',
      preferredLabel: '[R] Request changes',
    });
    expect(readJson(join(logsRoot, 'gate', 'status.json'))).toMatchObject({
      preferred_label: '[R] Request changes',
    });
  });

  it('**Conditional handler:** Passes through; engine evaluates edge conditions against outcome/context', async () => {
    const { registry } = scriptedRegistry({
      measure: [{ status: 'success', contextUpdates: { tests: 'red' } }],
    });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        measure [prompt="m"]; check [shape=diamond]
        green [prompt="g"]; red [prompt="r"]
        start -> measure -> check
        check -> green [condition="context.tests=green"]
        check -> red [condition="context.tests=red"]
        green -> exit; red -> exit
      }`,
      { registry },
    );
    expect(result.completedNodes).toEqual(['start', 'measure', 'check', 'red', 'exit']);
    expect(result.nodeOutcomes.check).toMatchObject({ status: 'success' });
  });

  it('**Parallel handler:** Fans out to multiple target nodes concurrently (or sequentially as fallback)', async () => {
    const latch = latchHandler(3);
    const registry = createDefaultRegistry().register('codergen', latch);
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        fan [shape=component]
        a [prompt="a"]; b [prompt="b"]; c [prompt="c"]
        join [shape=tripleoctagon]
        start -> fan
        fan -> a; fan -> b; fan -> c
        a -> join; b -> join; c -> join
        join -> exit
      }`,
      { registry },
    );
    // Each branch waited until all three were running at once: they ran concurrently.
    expect(latch.maxInFlight()).toBe(3);
    expect(result.status).toBe('success');
    expect(result.nodeOutcomes.fan).toMatchObject({ status: 'success' });
    // max_parallel=1 is the sequential fallback: the same graph with a latch of 1 runs one branch at a time.
    const sequential = latchHandler(1);
    const { result: sequentialResult } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        fan [shape=component, max_parallel=1]
        a [prompt="a"]; b [prompt="b"]
        join [shape=tripleoctagon]
        start -> fan; fan -> a; fan -> b; a -> join; b -> join; join -> exit
      }`,
      { registry: createDefaultRegistry().register('codergen', sequential) },
    );
    expect(sequentialResult.status).toBe('success');
    expect(sequential.maxInFlight()).toBe(1);
  });

  it('**Fan-in handler:** Waits for all parallel branches to complete before proceeding', async () => {
    const { events, result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        fan [shape=component]
        quick [shape=parallelogram, tool_command="echo quick"]
        slow [shape=parallelogram, tool_command="sleep 0.3; echo slow"]
        join [shape=tripleoctagon]
        start -> fan; fan -> quick; fan -> slow; quick -> join; slow -> join; join -> exit
      }`,
    );
    expect(result.status).toBe('success');
    const order = events.flatMap((event) =>
      event.type === 'parallel.branch.completed'
        ? [`branch ${event.branch}`]
        : event.type === 'stage.started' && event.nodeId === 'join'
          ? ['join started']
          : [],
    );
    expect(order).toEqual(['branch quick', 'branch slow', 'join started']);
    const results = readParallelResults(result.context.get('parallel.results')) ?? [];
    expect(results.map((branch) => [branch.branch, branch.status])).toEqual([
      ['quick', 'success'],
      ['slow', 'success'],
    ]);
  });

  it('**Tool handler:** Executes configured tool/command and returns result', async () => {
    const { result, logsRoot, workdir } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        build [shape=parallelogram, tool_command="echo built > artifact.txt && echo 'build ok'"]
        broken [shape=parallelogram, tool_command="echo oops >&2; exit 3"]
        start -> build -> broken -> exit
      }`,
    );
    expect(readText(join(workdir, 'artifact.txt'))).toBe('built\n');
    expect(result.nodeOutcomes.build).toMatchObject({ status: 'success' });
    expect(readText(join(logsRoot, 'build', 'stdout.txt'))).toBe('build ok\n');
    expect(result.nodeOutcomes.broken).toMatchObject({ status: 'fail' });
    expect(result.nodeOutcomes.broken!.failureReason).toContain('3');
    expect(result.nodeOutcomes.broken!.failureReason).toContain('oops');
    expect(result.context.get('tool.exit_code')).toBe(3);
    expect(result.status).toBe('fail');
  });

  it('Custom handlers can be registered by type string', async () => {
    const seen: string[] = [];
    const registry = createDefaultRegistry().register('acme.notify', {
      async execute({ node }) {
        seen.push(`${node.id}:${node.attributes.channel?.value}`);
        return { status: 'success', contextUpdates: { notified: node.attributes.channel?.value ?? '' } };
      },
    });
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        notify [type="acme.notify", channel="#releases"]
        start -> notify -> exit
      }`,
      { registry },
    );
    expect(seen).toEqual(['notify:#releases']);
    expect(result.context.get('notified')).toBe('#releases');
    expect(existsSync(join(result.logsRoot, 'notify', 'status.json'))).toBe(true);
  });
});
