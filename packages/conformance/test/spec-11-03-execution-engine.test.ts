/** Spec §11.3 Execution Engine: one test per checkbox, through runPipeline with real run directories. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Handler, Outcome } from '@attractor/engine';
import type { Graph, GraphNode } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { describe, expect, it } from 'vitest';
import { readJson, runDot } from './support/run-dot.js';
import { scriptedRegistry } from './support/scripted.js';

describe('§11.3 Execution Engine', () => {
  it('Engine resolves the start node and begins execution there', async () => {
    // The start node is declared last and is not named "start": the engine finds it by shape.
    const { result, events } = await runDot(`digraph G {
      a [prompt="a"]; exit [shape=Msquare]
      a -> exit
      begin [shape=Mdiamond]
      begin -> a
    }`);
    expect(result.status).toBe('success');
    expect(result.completedNodes[0]).toBe('begin');
    expect(events.find((event) => event.type === 'stage.started')).toMatchObject({ nodeId: 'begin' });
  });

  it("Each node's handler is resolved via shape-to-handler-type mapping", async () => {
    const seen: string[] = [];
    const spy = (type: string): Handler => ({
      async execute({ node }) {
        seen.push(`${node.id}:${type}`);
        return { status: 'success' };
      },
    });
    const registry = createDefaultRegistry();
    for (const type of ['codergen', 'conditional', 'tool', 'wait.human']) registry.register(type, spy(type));
    const { result } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]
        llm [shape=box, prompt="p"]; check [shape=diamond]; run [shape=parallelogram, tool_command="true"]
        gate [shape=hexagon]; typed [shape=box, type="tool", tool_command="true"]
        start -> llm -> check -> run -> gate -> typed -> exit
      }`,
      { registry },
    );
    expect(result.status).toBe('success');
    // An explicit type attribute overrides the shape (spec §2.8).
    expect(seen).toEqual(['llm:codergen', 'check:conditional', 'run:tool', 'gate:wait.human', 'typed:tool']);
  });

  it('Handler is called with (node, context, graph, logs_root) and returns an Outcome', async () => {
    const calls: { node: GraphNode; context: Context; graph: Graph; logsRoot: string }[] = [];
    const registry = createDefaultRegistry().register('codergen', {
      async execute({ node, context, graph, logsRoot }) {
        calls.push({ node, context, graph, logsRoot });
        return { status: 'success', notes: `ran ${node.id}` };
      },
    });
    const { result, logsRoot } = await runDot(
      'digraph Args { graph [goal="G"]; start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; start -> work -> exit }',
      { registry },
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.node.id).toBe('work');
    expect(calls[0]!.context.get('graph.goal')).toBe('G');
    expect(calls[0]!.graph.id).toBe('Args');
    expect(calls[0]!.logsRoot).toBe(logsRoot);
    expect(result.nodeOutcomes.work).toMatchObject({ status: 'success', notes: 'ran work' });
  });

  it('Outcome is written to `{logs_root}/{node_id}/status.json`', async () => {
    const { registry } = scriptedRegistry({
      work: [
        { status: 'partial_success', preferredLabel: 'Ok', notes: 'half done', contextUpdates: { k: 1 } },
      ],
    });
    const { logsRoot } = await runDot(
      'digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; start -> work -> exit }',
      { registry },
    );
    expect(readJson(join(logsRoot, 'work', 'status.json'))).toMatchObject({
      outcome: 'partial_success',
      preferred_label: 'Ok',
      notes: 'half done',
      context_updates: { k: 1 },
    });
    expect(readJson(join(logsRoot, 'start', 'status.json'))).toMatchObject({ outcome: 'success' });
  });

  it('Edge selection follows the 5-step priority: condition match -> preferred label -> suggested IDs -> weight -> lexical', async () => {
    const route = async (outcome: Outcome) => {
      const { registry } = scriptedRegistry({ decide: [outcome] });
      const { result } = await runDot(
        `digraph G {
          start [shape=Mdiamond]; exit [shape=Msquare]; decide [prompt="d"]
          by_condition [prompt="c"]; by_label [prompt="l"]; by_suggestion [prompt="s"]
          heavy [prompt="h"]
          start -> decide
          decide -> by_condition [condition="context.flag=yes", weight=0]
          decide -> by_label [label="[P] Pick me", weight=1]
          decide -> by_suggestion [weight=1]
          decide -> heavy [weight=2]
          by_condition -> exit; by_label -> exit; by_suggestion -> exit; heavy -> exit
        }`,
        { registry },
      );
      return result.completedNodes[2];
    };
    // 1. A matching condition wins over everything, even a heavier unconditional edge.
    expect(
      await route({ status: 'success', contextUpdates: { flag: 'yes' }, preferredLabel: 'pick me' }),
    ).toBe('by_condition');
    // 2. The preferred label (normalised: case, accelerator prefix) wins over suggestions and weight.
    expect(
      await route({ status: 'success', preferredLabel: 'pick me', suggestedNextIds: ['by_suggestion'] }),
    ).toBe('by_label');
    // 3. Suggested next ids win over weight.
    expect(await route({ status: 'success', suggestedNextIds: ['by_suggestion'] })).toBe('by_suggestion');
    // 4. Otherwise the heaviest unconditional edge.
    expect(await route({ status: 'success' })).toBe('heavy');
    // 5. Equal weights: the lexically smallest target id.
    const { result } = await runDot(`digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]; decide [prompt="d"]; b_lexical [prompt="b"]; a_lexical [prompt="a"]
      start -> decide
      decide -> b_lexical; decide -> a_lexical
      a_lexical -> exit; b_lexical -> exit
    }`);
    expect(result.completedNodes).toEqual(['start', 'decide', 'a_lexical', 'exit']);
  });

  it('Engine loops: execute node -> select edge -> advance to next node -> repeat', async () => {
    const { registry, handler } = scriptedRegistry({ work: ['fail', 'fail', 'success'] });
    const { result, events } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; fix [prompt="f"]
        start -> work
        work -> fix [condition="outcome=fail"]
        fix -> work
        work -> exit [condition="outcome=success"]
      }`,
      { registry },
    );
    expect(result.status).toBe('success');
    expect(handler.nodeIds()).toEqual(['work', 'fix', 'work', 'fix', 'work']);
    expect(
      events
        .filter((event) => event.type === 'stage.started')
        .map((event) => 'nodeId' in event && event.nodeId),
    ).toEqual(['start', 'work', 'fix', 'work', 'fix', 'work', 'exit']);
  });

  it('Terminal node (shape=Msquare) stops execution', async () => {
    const { registry, handler } = scriptedRegistry();
    const { result, logsRoot } = await runDot(
      `digraph G {
        start [shape=Mdiamond]; finish [shape=Msquare]; a [prompt="a"]; after [prompt="never"]
        start -> a -> finish
        a -> after [weight=-1]
      }`,
      { registry },
    );
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'a', 'finish']);
    expect(handler.nodeIds()).toEqual(['a']);
    expect(existsSync(join(logsRoot, 'after'))).toBe(false);
  });

  it('Pipeline outcome is "success" if all goal_gate nodes reached `SUCCESS` or `PARTIAL_SUCCESS`, "fail" otherwise', async () => {
    const dot = `digraph G {
      start [shape=Mdiamond]; exit [shape=Msquare]
      a [prompt="a", goal_gate=true]; b [prompt="b", goal_gate=true]
      start -> a
      a -> b
      b -> exit
    }`;
    const run = async (a: string, b: string) =>
      (await runDot(dot, { registry: scriptedRegistry({ a: [a], b: [b] }).registry })).result;
    expect((await run('success', 'partial_success')).status).toBe('success');
    const failed = await run('success', 'fail');
    expect(failed.status).toBe('fail');
    expect(failed.failureReason).toContain('b');
  });
});
