import { join } from 'node:path';
import { isDeclaredHandler, type Question } from '@attractor/engine';
import { prepareGraph, SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { createCallbackInterviewer } from '../src/interviewers/callback-interviewer.js';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { readText, runDot, tempDir, waitUntilDead } from './helpers.js';

describe('createDefaultRegistry (spec §2.8, §4.2)', () => {
  it('registers every handler type of the shape table, subgraph and foreach, and defaults to codergen', () => {
    const registry = createDefaultRegistry();
    expect(registry.types().sort()).toEqual([
      'codergen',
      'conditional',
      'exit',
      'foreach',
      'parallel',
      'parallel.fan_in',
      'stack.manager_loop',
      'start',
      'subgraph',
      'tool',
      'wait.human',
    ]);
    expect(registry.defaultHandler).toBe(registry.get('codergen'));
  });

  it('declares each handler with the attribute schema and traits of SPEC_HANDLER_DECLARATIONS', () => {
    const registry = createDefaultRegistry();
    for (const type of registry.types()) {
      const handler = registry.get(type)!;
      expect(isDeclaredHandler(handler), type).toBe(true);
      if (!isDeclaredHandler(handler)) continue;
      const { attributes, outcomes, ...traits } = SPEC_HANDLER_DECLARATIONS[
        type as keyof typeof SPEC_HANDLER_DECLARATIONS
      ] as (typeof SPEC_HANDLER_DECLARATIONS)['wait.human'];
      expect(handler.attributeKeys, type).toEqual(Object.keys(attributes.shape));
      expect(handler.outcomes, type).toEqual(outcomes);
      expect(handler.traits, type).toEqual(traits);
    }
  });

  it('lints a graph the same with the registered handlers as with the spec declarations', () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      fan [shape=component, max_parallel="x", join_policy="bogus", tool_command="make"]
      join [shape=tripleoctagon, fan_in_mode="vote", human.input="voice"]
      gate [shape=hexagon, human.input="voice", max_parallel=2]
      run [shape=parallelogram, tool_command="make", tool_output_max_bytes=0, llm_model="m"]
      boss [shape=house, manager.actions="dance", stack.child_dotfile="child.dot", tools="rm"]
      work [prompt="x", tools="rm", fidelity="fulll", graph_ref="child.dot"]
      start -> fan
      fan -> run -> join
      fan -> work -> join
      join -> gate
      gate -> boss [label="[B] Boss"]
      gate -> exit [label="[E] Exit"]
      boss -> exit
    }`;
    const rules = new Set(['attribute_type', 'inert_attribute', 'unknown_attribute', 'fidelity_valid']);
    const findings = (options: Parameters<typeof prepareGraph>[1]) =>
      prepareGraph(source, { filename: 'g.dot', ...options }).diagnostics.filter((diagnostic) =>
        rules.has(diagnostic.rule),
      );
    const registry = createDefaultRegistry();
    const registered = findings({ handlers: registry.lintInfo(), knownHandlerTypes: registry.types() });
    expect(registered).toEqual(findings({}));
    expect(registered.map((diagnostic) => `${diagnostic.rule} ${diagnostic.nodeId}`)).toEqual([
      'attribute_type fan',
      'attribute_type fan',
      'inert_attribute fan',
      'attribute_type join',
      'inert_attribute join',
      'attribute_type join',
      'attribute_type gate',
      'inert_attribute gate',
      'attribute_type run',
      'inert_attribute run',
      'attribute_type boss',
      'inert_attribute boss',
      'attribute_type boss',
      'attribute_type work',
      'fidelity_valid work',
      'inert_attribute work',
    ]);
  });

  it('fails a built-in node whose attribute its schema refuses (when the graph was not validated first)', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      run [shape=parallelogram, tool_command="echo hi", tool_output_max_bytes=0]
      start -> run -> exit
    }`;
    const { graph } = prepareGraph(source, { filename: 'g.dot' });
    const { result } = await runDot(graph!, { workdir: tempDir() });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.run).toMatchObject({
      status: 'fail',
      failureReason: 'node "run" has an invalid tool_output_max_bytes: expected a positive integer such as 4',
    });
  });

  it('uses the interviewer override instead of the run interviewer', async () => {
    const asked: Question[] = [];
    const registry = createDefaultRegistry({
      backend: createSimulationBackend(),
      interviewer: createCallbackInterviewer({
        ask: (question) => {
          asked.push(question);
          return { value: 'B' };
        },
      }),
    });
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      gate [shape=hexagon]
      a [prompt="a"]
      b [prompt="b"]
      start -> gate
      gate -> a [label="[A] a"]
      gate -> b [label="[B] b"]
      a -> exit
      b -> exit
    }`;
    const { result } = await runDot(source, {
      registry,
      interviewer: createQueueInterviewer({ answers: ['A'] }),
    });
    expect(asked).toHaveLength(1);
    expect(result.completedNodes).toEqual(['start', 'gate', 'b', 'exit']);
  });

  it('first_success kills the process group of a losing tool branch', async () => {
    const workdir = tempDir();
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      fan [shape=component, join_policy=first_success]
      join [shape=tripleoctagon]
      slow [shape=parallelogram, tool_command="sleep 600 & echo $! > slow.pid; wait"]
      quick [shape=parallelogram, tool_command="while [ ! -f slow.pid ]; do sleep 0.05; done; echo quick"]
      start -> fan
      fan -> slow -> join
      fan -> quick -> join
      join -> exit
    }`;
    // The slow branch never ends by itself: the run ends because the join cancelled it.
    const { result } = await runDot(source, { workdir });
    expect(result.status).toBe('success');
    expect(result.context.get('parallel.fan_in.best_id')).toBe('quick');
    const pid = Number(readText(join(workdir, 'slow.pid')));
    expect(await waitUntilDead(pid, 30_000)).toBe(true);
  });
});
