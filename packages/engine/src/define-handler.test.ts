import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registryWith, run } from '../test/helpers.js';
import { defineHandler } from './define-handler.js';
import type { Handler } from './handler.js';
import { HandlerRegistry } from './handler-registry.js';

const deploy = defineHandler({
  type: 'deploy',
  attributes: z.object({
    region: z.enum(['eu', 'us']),
    replicas: z.coerce.number().int().positive().optional(),
  }),
  outcomes: ['success', 'fail', 'rolled_back'],
  async execute({ node, attributes, context }) {
    return {
      status: 'success',
      contextUpdates: {
        [`${node.id}.region`]: attributes.region,
        [`${node.id}.replicas`]: attributes.replicas ?? 1,
        [`${node.id}.goal`]: context.getString('graph.goal'),
      },
    };
  },
});

const passThrough = defineHandler({
  type: 'noop',
  async execute() {
    return { status: 'success' };
  },
});

function pipeline(deployAttributes: string, condition = 'outcome=success'): string {
  return `digraph release {
  goal="ship"
  start [shape=Mdiamond]
  exit [shape=Msquare]
  ship [type="deploy", ${deployAttributes}]
  start -> ship
  ship -> exit [condition="${condition}"]
  ship -> exit [condition="outcome=fail"]
}`;
}

describe('defineHandler (docs/architecture.md "Handler contract")', () => {
  it('runs execute with one argument object and the attributes parsed by its schema', async () => {
    const { graph } = prepareGraph(pipeline('region="eu", replicas="3"'));
    const registry = registryWith(passThrough).register(deploy);
    const { result } = await run({ graph: graph!, registry });
    expect(result.status).toBe('success');
    expect(result.context.get('ship.region')).toBe('eu');
    expect(result.context.get('ship.replicas')).toBe(3);
    expect(result.context.get('ship.goal')).toBe('ship');
  });

  it('fails a node whose declared attribute does not match the schema, naming it', async () => {
    const { graph } = prepareGraph(pipeline('region="mars"'));
    const { result } = await run({ graph: graph!, registry: registryWith(passThrough).register(deploy) });
    expect(result.nodeOutcomes.ship).toEqual({
      status: 'fail',
      failureReason: 'node "ship" has an invalid region: Invalid option: expected one of "eu"|"us"',
      retryable: false,
    });
  });

  it('gives lint its attributes and outcomes through the registry', () => {
    const registry = new HandlerRegistry().register(deploy);
    const lint = (source: string) =>
      prepareGraph(source, { knownHandlerTypes: ['start', 'exit', 'deploy'], handlers: registry.lintInfo() })
        .diagnostics;
    const clean = lint(pipeline('region="eu", replicas="2"'));
    expect(clean.filter((diagnostic) => diagnostic.severity !== 'info')).toEqual([]);

    const typo = lint(pipeline('region="eu", regoin="us"'));
    expect(typo.map((diagnostic) => diagnostic.rule)).toEqual(['unknown_attribute']);
    expect(typo[0]!.message).toContain('regoin');

    const bad = lint(pipeline('region="mars", replicas="0"'));
    expect(
      bad
        .filter((diagnostic) => diagnostic.rule === 'attribute_type')
        .map((diagnostic) => diagnostic.message),
    ).toEqual([
      'Node "ship" has region="mars", which its deploy handler does not accept: Invalid option: expected one of "eu"|"us".',
      'Node "ship" has replicas="0", which its deploy handler does not accept: Too small: expected number to be >0.',
    ]);

    const declared = lint(pipeline('region="eu"', 'outcome=rolled_back'));
    expect(declared.filter((diagnostic) => diagnostic.rule === 'outcome_coverage')).toEqual([]);
    const never = lint(pipeline('region="eu"', 'outcome=partial_success'));
    expect(
      never
        .filter((diagnostic) => diagnostic.rule === 'outcome_coverage')
        .map((diagnostic) => diagnostic.message),
    ).toEqual([
      'Edge ship -> exit is never taken: "ship" is a deploy node, which returns only success, fail, rolled_back, never partial_success.',
    ]);
  });

  it('without a registry, a custom handler’s keys are unknown attributes', () => {
    const { diagnostics } = prepareGraph(pipeline('region="eu"'), {
      knownHandlerTypes: ['start', 'exit', 'deploy'],
    });
    expect(diagnostics.map((diagnostic) => diagnostic.rule)).toContain('unknown_attribute');
  });
});

describe('declared capabilities (docs/architecture.md "Handler contract")', () => {
  const slowSource = `digraph gate {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [type="approve", timeout="10ms"]
  start -> approve -> exit
}`;
  const slow = (asksHuman: boolean) =>
    defineHandler({
      type: 'approve',
      asksHuman,
      async execute({ runtime }) {
        await runtime.clock.sleep(50);
        return { status: 'success' };
      },
    });

  it('a handler that asks a person is not cut off by the node timeout; another one is', async () => {
    const { graph } = prepareGraph(slowSource);
    const human = await run({ graph: graph!, registry: registryWith(passThrough).register(slow(true)) });
    expect(human.result.nodeOutcomes.approve?.status).toBe('success');
    const plain = await run({ graph: graph!, registry: registryWith(passThrough).register(slow(false)) });
    expect(plain.result.nodeOutcomes.approve).toMatchObject({
      status: 'fail',
      failureReason: 'timeout after 10ms',
    });
  });

  it('a handler that only routes leaves last_stage at the stage before it', async () => {
    const router = defineHandler({
      type: 'router',
      routesOnly: true,
      execute: async () => ({ status: 'success' }),
    });
    const { graph } = prepareGraph(`digraph route {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [prompt="w"]
  pick [type="router"]
  after_work [prompt="a"]
  after_pick [prompt="b"]
  start -> work -> pick
  pick -> after_work [condition="context.last_stage=work"]
  pick -> after_pick [condition="context.last_stage=pick"]
  after_work -> exit
  after_pick -> exit
}`);
    const routed = await run({ graph: graph!, registry: registryWith(passThrough).register(router) });
    expect(routed.result.completedNodes).toContain('after_work');
    const plain = defineHandler({ type: 'router', execute: async () => ({ status: 'success' }) });
    const stage = await run({ graph: graph!, registry: registryWith(passThrough).register(plain) });
    expect(stage.result.completedNodes).toContain('after_pick');
  });

  it('reach lint through the registry: a custom gate is linted as a human gate', () => {
    const registry = new HandlerRegistry().register(slow(true));
    const source = `digraph gate {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  approve [type="approve"]
  start -> approve
  start -> exit
}`;
    const rules = (handlers?: ReturnType<HandlerRegistry['lintInfo']>) =>
      prepareGraph(source, {
        knownHandlerTypes: ['start', 'exit', 'approve'],
        ...(handlers ? { handlers } : {}),
      }).diagnostics.map((diagnostic) => diagnostic.rule);
    expect(rules(registry.lintInfo())).toContain('human_gate_edges');
    expect(rules()).not.toContain('human_gate_edges');
  });

  it('registry.traitsOf returns a declared handler’s own, else the spec’s for the node’s type', () => {
    const { graph } = prepareGraph(
      'digraph t { start [shape=Mdiamond]; exit [shape=Msquare]; fan [shape=component]; a [type="approve"]; start -> fan -> a -> exit }',
    );
    const registry = new HandlerRegistry().register(slow(true));
    expect(registry.traitsOf(graph!.node('a')!, graph!)).toEqual({ asksHuman: true });
    expect(registry.traitsOf(graph!.node('fan')!, graph!)).toMatchObject({ fansOut: true });
    expect(registry.traitsOf(graph!.node('start')!, graph!)).toMatchObject({ role: 'start' });
  });
});

describe('handlers written for the positional execute', () => {
  it('are still called with (node, context, graph, logsRoot, runtime)', async () => {
    const seen: string[] = [];
    const positional = {
      async execute(node: { id: string }, context: { getString(key: string): string }, ...rest: unknown[]) {
        seen.push(`${node.id}:${context.getString('graph.goal')}:${rest.length}`);
        return { status: 'success' as const };
      },
    } as unknown as Handler;
    const { graph } = prepareGraph(pipeline('region="eu"'));
    const { result } = await run({ graph: graph!, registry: registryWith(positional) });
    expect(result.status).toBe('success');
    expect(seen).toEqual(['ship:ship:3']);
  });
});
