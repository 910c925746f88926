import { describe, expect, it } from 'vitest';
import { mergeResumeOptions, resolveBackend } from './backend-choice.js';
import { readBackendOption } from './backend-option.js';

function routingOf(text: string) {
  const read = readBackendOption(text);
  if ('error' in read) throw new Error(read.error);
  return read.routing;
}

describe('mergeResumeOptions (resume keeps what the run recorded)', () => {
  it('keeps every recorded backend option that resume does not give', () => {
    const merged = mergeResumeOptions(
      { model: 'claude-opus-4-5' },
      { backend: 'claude-code,openai=codex', baseUrl: 'http://127.0.0.1:1/v1', agentPermissions: 'full' },
    );
    expect(merged).toEqual({
      model: 'claude-opus-4-5',
      backend: routingOf('claude-code,openai=codex'),
      baseUrl: 'http://127.0.0.1:1/v1',
      agentPermissions: 'full',
    });
  });

  it('lets an option given to resume win', () => {
    const merged = mergeResumeOptions(
      { backend: routingOf('codex') },
      { backend: 'claude-code', model: 'm' },
    );
    expect(merged.backend).toEqual(routingOf('codex'));
    expect(merged.model).toBe('m');
  });

  it('drops a recorded simulation when resume chooses a real backend', () => {
    const merged = mergeResumeOptions({ backend: routingOf('claude-code') }, { simulate: true });
    expect(merged.simulate).toBeUndefined();
  });
});

describe('resolveBackend with --backend', () => {
  it('needs no API key up front: which stages use the api backend is known once the graph is read', () => {
    const resolved = resolveBackend({ backend: routingOf('claude-code') }, {}, '/');
    expect(resolved).toEqual({
      kind: 'routed',
      routing: { default: 'claude-code', byProvider: {} },
      agentPermissions: 'edit',
      api: { kind: 'ai-sdk' },
    });
  });
});
