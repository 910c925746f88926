import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registryWith, run } from '../test/helpers.js';
import { defineHandler } from './define-handler.js';
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

describe('defineHandler (DESIGN.md "Handler contract")', () => {
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
