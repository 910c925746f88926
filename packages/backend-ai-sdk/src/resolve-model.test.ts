import { createTestNode } from '@attractor/engine/test';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { inferProvider } from './built-in-providers.js';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';
import { createModelRegistry, isOpenAIReasoningModel, resolveModel } from './resolve-model.js';

describe('inferProvider', () => {
  it('maps model families to providers', () => {
    expect(
      ['gpt-5', 'gpt-4o-mini', 'o1', 'o3-mini', 'o4-mini', 'codex-mini', 'chatgpt-4o-latest'].map(
        inferProvider,
      ),
    ).toEqual(Array(7).fill('openai'));
    expect(inferProvider('claude-sonnet-4-5')).toBe('anthropic');
    expect(inferProvider('gemini-2.5-pro')).toBe('google');
    expect(inferProvider('qwen2.5-coder')).toBeUndefined();
    expect(inferProvider('o10')).toBeUndefined();
  });
});

describe('isOpenAIReasoningModel', () => {
  it('recognises the o-series, gpt-5 and later (not -chat) and codex', () => {
    expect(
      ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5.1-codex', 'codex-mini'].every(isOpenAIReasoningModel),
    ).toBe(true);
    expect(['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'qwen2.5'].some(isOpenAIReasoningModel)).toBe(
      false,
    );
  });
});

describe('resolveModel', () => {
  it('uses Chat Completions with a custom base URL and the Responses API without one', () => {
    const node = createTestNode({ id: 'n', llmModel: 'gpt-5' });
    const chat = resolveModel({ node, registry: createModelRegistry({ baseURL: 'http://127.0.0.1:1/v1' }) });
    const fromEnv = resolveModel({
      node,
      registry: createModelRegistry({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' } }),
    });
    const responses = resolveModel({ node, registry: createModelRegistry({ apiKey: 'k' }) });
    expect([chat.model.provider, chat.modelId, chat.openaiApi]).toEqual(['openai.chat', 'gpt-5', 'chat']);
    expect(fromEnv.model.provider).toBe('openai.chat');
    expect(responses.model.provider).toBe('openai.responses');
  });

  it('serves claude-* from Anthropic and gemini-* from Google, also under the name gemini', () => {
    const registry = createModelRegistry({ env: { ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' } });
    const claude = resolveModel({
      node: createTestNode({ id: 'n', llmModel: 'claude-sonnet-4-6' }),
      registry,
    });
    const gemini = resolveModel({
      node: createTestNode({ id: 'n', llmModel: 'gemini-3-flash-preview', llmProvider: 'gemini' }),
      registry,
    });
    expect([claude.provider, claude.builtIn, claude.model.provider]).toEqual([
      'anthropic',
      'anthropic',
      'anthropic.messages',
    ]);
    expect([gemini.provider, gemini.model.provider, gemini.model.modelId]).toEqual([
      'gemini',
      'google.generative-ai',
      'gemini-3-flash-preview',
    ]);
  });

  it('adds /v1 to an ANTHROPIC_BASE_URL given as the server root', () => {
    const registry = createModelRegistry({ env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' } });
    expect(registry.target('anthropic')?.baseURL).toBe('http://127.0.0.1:9/v1');
  });

  it('takes the default model for a node without llm_model and a given provider instance', () => {
    const mock = new MockLanguageModelV3();
    const resolved = resolveModel({
      node: createTestNode({ id: 'n' }),
      defaultModel: 'my-model',
      defaultProvider: 'mock',
      registry: createModelRegistry({ providers: { mock: () => mock } }),
    });
    expect(resolved).toMatchObject({ provider: 'mock', modelId: 'my-model' });
    expect(resolved.builtIn).toBeUndefined();
    expect(resolved.model.modelId).toBe(mock.modelId);
  });

  it('prefers llm_provider over the inferred provider', () => {
    const mock = new MockLanguageModelV3();
    const resolved = resolveModel({
      node: createTestNode({ id: 'n', llmModel: 'gpt-oss', llmProvider: 'local' }),
      registry: createModelRegistry({ providers: { local: { languageModel: () => mock } } }),
    });
    expect(resolved.provider).toBe('local');
  });

  it('fails clearly without any model', () => {
    const error = (() => {
      try {
        resolveModel({ node: createTestNode({ id: 'plan' }), registry: createModelRegistry() });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(BackendConfigurationError.isInstance(error)).toBe(true);
    expect((error as BackendConfigurationError).setting).toBe('model');
    expect((error as Error).message).toContain('Node "plan" names no model');
    expect((error as Error).message).toContain('--model');
  });

  it('names the providers it knows for an unknown llm_provider', () => {
    expect(() =>
      resolveModel({
        node: createTestNode({ id: 'n', llmModel: 'mistral-large', llmProvider: 'mistral' }),
        registry: createModelRegistry(),
      }),
    ).toThrow(
      'provider "mistral", which the backend does not know (it knows openai, anthropic, google, gemini)',
    );
  });
});
