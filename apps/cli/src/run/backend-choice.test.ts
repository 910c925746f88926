import { describe, expect, it } from 'vitest';
import { mergeResumeOptions, resolveBackend } from './backend-choice.js';
import { parseBackendOption } from './backend-option.js';

describe('mergeResumeOptions (resume keeps what the run recorded)', () => {
  it('keeps every recorded backend option that resume does not give', () => {
    const merged = mergeResumeOptions(
      { model: 'claude-opus-4-5' },
      { backend: 'claude-code,openai=codex', baseUrl: 'http://127.0.0.1:1/v1', agentPermissions: 'full' },
    );
    expect(merged).toEqual({
      model: 'claude-opus-4-5',
      backend: parseBackendOption('claude-code,openai=codex'),
      baseUrl: 'http://127.0.0.1:1/v1',
      agentPermissions: 'full',
    });
  });

  it('lets an option given to resume win', () => {
    const merged = mergeResumeOptions(
      { backend: parseBackendOption('codex') },
      { backend: 'claude-code', model: 'm' },
    );
    expect(merged.backend).toEqual(parseBackendOption('codex'));
    expect(merged.model).toBe('m');
  });

  it('drops a recorded simulation when resume chooses a real backend', () => {
    const merged = mergeResumeOptions({ backend: parseBackendOption('claude-code') }, { simulate: true });
    expect(merged.simulate).toBeUndefined();
  });
});

describe('resolveBackend with --backend', () => {
  it('needs no API key up front: which stages use the api backend is known once the graph is read', () => {
    const resolved = resolveBackend({ backend: parseBackendOption('claude-code') }, {}, '/');
    expect(resolved).toEqual({
      kind: 'routed',
      routing: { default: 'claude-code', byProvider: {} },
      agentPermissions: 'edit',
    });
  });
});
