import { prepareGraph } from '@attractor/graph';
import { describe, expect, it } from 'vitest';
import { checkLlmStages } from './check-llm-stages.js';

function graphOf(body: string) {
  return prepareGraph(`digraph G { start [shape=Mdiamond]; exit [shape=Msquare]; ${body} }`).graph!;
}

describe('checkLlmStages (preflight)', () => {
  const graph = graphOf(`
    review [llm_model="claude-sonnet-4-6"]; draft [llm_model="gemini-3-flash-preview", llm_provider="gemini"]
    plan [prompt="Plan"]; check [shape=parallelogram, tool_command="true"]
    start -> plan -> draft -> review -> check -> exit`);

  it('lists every stage without credentials or model at once', () => {
    const result = checkLlmStages({ graph, env: {} });
    expect(result.llmStages).toEqual(['review', 'draft', 'plan']);
    expect(result.problems).toEqual([
      {
        kind: 'no_credentials',
        nodeId: 'review',
        provider: 'anthropic',
        modelId: 'claude-sonnet-4-6',
        variables: ['ANTHROPIC_API_KEY'],
      },
      {
        kind: 'no_credentials',
        nodeId: 'draft',
        provider: 'gemini',
        modelId: 'gemini-3-flash-preview',
        variables: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
      },
      { kind: 'no_model', nodeId: 'plan' },
    ]);
  });

  it("finds LLM stages by the capability their handler declares (callsModel), not by the type's name", () => {
    const plugins = graphOf(`
      summarize [type="summarize", llm_model="claude-sonnet-4-6"]; plan [prompt="Plan", llm_model="gpt-5"]
      start -> summarize -> plan -> exit`);
    // A plug-in type that calls the model is checked; a plug-in registered as codergen that does not call it is not.
    const handlers = new Map([
      ['summarize', { callsModel: true }],
      ['codergen', {}],
    ]);
    const result = checkLlmStages({ graph: plugins, env: {}, handlers });
    expect(result.llmStages).toEqual(['summarize']);
    expect(result.problems).toEqual([
      {
        kind: 'no_credentials',
        nodeId: 'summarize',
        provider: 'anthropic',
        modelId: 'claude-sonnet-4-6',
        variables: ['ANTHROPIC_API_KEY'],
      },
    ]);
    // Without the registry's declarations, only the built-in codergen stage is one.
    expect(checkLlmStages({ graph: plugins, env: {} }).llmStages).toEqual(['plan']);
  });

  it('is satisfied by the keys, a default model and an OpenAI-compatible base URL without a key', () => {
    const result = checkLlmStages({
      graph,
      env: { ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' },
      defaultModel: 'qwen2.5-coder',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    expect(result.problems).toEqual([]);
  });

  it('reports an unknown provider and accepts one passed in', () => {
    const mistral = graphOf('m [llm_model="mistral-large", llm_provider="mistral"]; start -> m -> exit');
    expect(checkLlmStages({ graph: mistral, env: {} }).problems).toEqual([
      { kind: 'unknown_provider', nodeId: 'm', provider: 'mistral', modelId: 'mistral-large' },
    ]);
    expect(checkLlmStages({ graph: mistral, env: {}, providerNames: ['mistral'] }).problems).toEqual([]);
  });

  it('finds nothing to check in a pipeline without LLM stages', () => {
    const tools = graphOf('t [shape=parallelogram, tool_command="true"]; start -> t -> exit');
    expect(checkLlmStages({ graph: tools, env: {} })).toEqual({ llmStages: [], problems: [] });
  });
});
