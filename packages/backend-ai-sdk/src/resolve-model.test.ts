import { createOpenAI } from '@ai-sdk/openai';
import { createTestNode } from '@attractor/engine/test';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';
import { inferProvider, isOpenAIReasoningModel, resolveModel } from './resolve-model.js';

const builtIn = (baseURL?: string) => () => ({
  provider: createOpenAI({ apiKey: 'k', ...(baseURL === undefined ? {} : { baseURL }) }),
  api: baseURL === undefined ? ('responses' as const) : ('chat' as const),
  ...(baseURL === undefined ? {} : { baseURL }),
});

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
    const chat = resolveModel({ node, builtInOpenAI: builtIn('http://127.0.0.1:1/v1') });
    const responses = resolveModel({ node, builtInOpenAI: builtIn() });
    expect([chat.model.provider, chat.modelId]).toEqual(['openai.chat', 'gpt-5']);
    expect(responses.model.provider).toBe('openai.responses');
  });

  it('takes the default model for a node without llm_model and a given provider instance', () => {
    const mock = new MockLanguageModelV3();
    const resolved = resolveModel({
      node: createTestNode({ id: 'n' }),
      defaultModel: 'claude-sonnet-4-5',
      providers: { anthropic: () => mock },
      builtInOpenAI: builtIn(),
    });
    expect(resolved).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      builtInOpenAI: false,
    });
    expect(resolved.model).toBe(mock);
  });

  it('prefers llm_provider over the inferred provider', () => {
    const mock = new MockLanguageModelV3();
    const resolved = resolveModel({
      node: createTestNode({ id: 'n', llmModel: 'gpt-oss', llmProvider: 'local' }),
      providers: { local: { languageModel: () => mock } },
      builtInOpenAI: builtIn(),
    });
    expect(resolved.provider).toBe('local');
  });

  it('fails clearly without any model', () => {
    const error = (() => {
      try {
        resolveModel({ node: createTestNode({ id: 'plan' }), builtInOpenAI: builtIn() });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(BackendConfigurationError.isInstance(error)).toBe(true);
    expect((error as BackendConfigurationError).setting).toBe('model');
    expect((error as Error).message).toContain('Node "plan" names no model');
    expect((error as Error).message).toContain('--model');
  });

  it('tells how to pass a provider it has no instance for', () => {
    expect(() =>
      resolveModel({
        node: createTestNode({ id: 'n', llmModel: 'claude-opus-4' }),
        builtInOpenAI: builtIn(),
      }),
    ).toThrow(
      'Install @ai-sdk/anthropic and pass it in: createAiSdkBackend({ providers: { anthropic: createAnthropic({ apiKey }) } })',
    );
  });
});
