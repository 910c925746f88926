import { BACKEND_VALUES as GRAPH_BACKEND_VALUES } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { BACKEND_VALUES, backendForNode, formatBackendOption, readBackendOption } from './backend-option.js';

function routingOf(text: string) {
  const read = readBackendOption(text);
  if ('error' in read) throw new Error(read.error);
  return read.routing;
}

function node(attributes: Record<string, string>, llmProvider?: string) {
  return {
    attributes: Object.fromEntries(Object.entries(attributes).map(([key, value]) => [key, { value }])),
    ...(llmProvider === undefined ? {} : { llmProvider }),
  };
}

describe('--backend (spec §1.4: the run chooses the backend)', () => {
  it('lists the same backends as the graph attribute', () => {
    expect(BACKEND_VALUES).toEqual(GRAPH_BACKEND_VALUES);
  });

  it('reads one backend, a mapping per provider, or both', () => {
    expect(routingOf('claude-code')).toEqual({ default: 'claude-code', byProvider: {} });
    expect(routingOf('anthropic=claude-code,openai=codex')).toEqual({
      default: 'api',
      byProvider: { anthropic: 'claude-code', openai: 'codex' },
    });
    expect(routingOf('codex, Google=gemini-cli')).toEqual({
      default: 'codex',
      byProvider: { google: 'gemini-cli' },
    });
  });

  it('rejects an unknown backend naming the valid ones', () => {
    expect(readBackendOption('claude')).toEqual({
      error:
        '"claude" is not a backend; use one of api, claude-code, codex, gemini-cli (e.g. --backend claude-code or --backend anthropic=claude-code,openai=codex).',
    });
    expect(() => routingOf('anthropic=claude')).toThrow(
      '"claude" (for provider anthropic) is not a backend; use one of api, claude-code, codex, gemini-cli',
    );
    expect(() => routingOf('codex,claude-code')).toThrow('names two default backends');
  });

  it('writes a routing back as an option that reads the same', () => {
    const routing = routingOf('codex,anthropic=claude-code');
    expect(routingOf(formatBackendOption(routing))).toEqual(routing);
  });

  it("picks the node's backend attribute, then its provider's mapping, then the default", () => {
    const routing = routingOf('codex,anthropic=claude-code');
    expect(backendForNode(node({ backend: 'gemini-cli' }, 'anthropic'), routing)).toBe('gemini-cli');
    expect(backendForNode(node({}, 'anthropic'), routing)).toBe('claude-code');
    expect(backendForNode(node({}), routing, 'anthropic')).toBe('claude-code');
    expect(backendForNode(node({}), routing, 'openai')).toBe('codex');
    expect(backendForNode(node({}), routing)).toBe('codex');
  });
});
