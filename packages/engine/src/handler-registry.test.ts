import { describe, expect, it } from 'vitest';
import { HandlerNotFoundError } from './errors/handler-not-found-error.js';
import type { Handler } from './handler.js';
import { HandlerRegistry } from './handler-registry.js';
import { createTestGraph } from './test/graph-builder.js';

const nameOf = (handler: Handler): string => (handler as unknown as { name: string }).name;
const named = (name: string): Handler & { name: string } => ({
  name,
  execute: async () => ({ status: 'success' }),
});

describe('HandlerRegistry (spec §4.2)', () => {
  const graph = createTestGraph({
    nodes: [
      { id: 'explicit', type: 'custom', shape: 'hexagon' },
      { id: 'human', shape: 'hexagon' },
      { id: 'unknownType', type: 'nope', shape: 'hexagon' },
      { id: 'plain' },
    ],
    edges: ['start -> explicit -> human -> unknownType -> plain -> exit'],
  });

  it('resolves the explicit type first, then the shape, then the default', () => {
    const registry = new HandlerRegistry({ defaultHandler: named('default') });
    registry.register('custom', named('custom')).register('wait.human', named('human'));
    expect(nameOf(registry.resolve(graph.node('explicit')!, graph))).toBe('custom');
    expect(nameOf(registry.resolve(graph.node('human')!, graph))).toBe('human');
    expect(nameOf(registry.resolve(graph.node('unknownType')!, graph))).toBe('human');
    expect(nameOf(registry.resolve(graph.node('plain')!, graph))).toBe('default');
  });

  it('replaces a handler registered twice for the same type', () => {
    const registry = new HandlerRegistry();
    registry.register('custom', named('first'));
    registry.register('custom', named('second'));
    expect(nameOf(registry.resolve(graph.node('explicit')!, graph))).toBe('second');
    expect(registry.types()).toEqual(['custom']);
  });

  it('reports registered types with has() and types()', () => {
    const registry = new HandlerRegistry({ handlers: { tool: named('tool'), codergen: named('c') } });
    expect(registry.has('tool')).toBe(true);
    expect(registry.has('parallel')).toBe(false);
    expect(registry.types()).toEqual(['tool', 'codergen']);
  });

  it('throws HandlerNotFoundError with the type and a fix when nothing matches', () => {
    const registry = new HandlerRegistry({ handlers: { tool: named('tool') } });
    let caught: unknown;
    try {
      registry.resolve(graph.node('plain')!, graph);
    } catch (error) {
      caught = error;
    }
    expect(HandlerNotFoundError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain('"codergen"');
    expect((caught as Error).message).toContain('registry.register');
  });
});
