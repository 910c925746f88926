import { describe, expect, it } from 'vitest';
import { readFixture } from '../../test/read-fixture.js';
import { prepareGraph } from '../prepare-graph.js';

function model(source: string, id: string) {
  const node = prepareGraph(source).graph!.node(id)!;
  return { llmModel: node.llmModel, llmProvider: node.llmProvider, reasoningEffort: node.reasoningEffort };
}

describe('applyStylesheetTransform (spec §8)', () => {
  const source = readFixture('spec-8-6-stylesheet.dot');

  it('resolves the §8.6 example exactly', () => {
    expect(model(source, 'plan')).toEqual({
      llmModel: 'claude-sonnet-4-5',
      llmProvider: 'anthropic',
      reasoningEffort: 'high',
    });
    expect(model(source, 'implement')).toEqual({
      llmModel: 'claude-opus-4-6',
      llmProvider: 'anthropic',
      reasoningEffort: 'high',
    });
    expect(model(source, 'critical_review')).toEqual({
      llmModel: 'gpt-5.2',
      llmProvider: 'openai',
      reasoningEffort: 'high',
    });
  });

  it('marks stylesheet values with origin stylesheet and the declaration span in the DOT file', () => {
    const { graph } = prepareGraph(source, { filename: 'p.dot' });
    const attribute = graph!.node('critical_review')!.attributes.llm_model!;
    expect(attribute).toMatchObject({ value: 'gpt-5.2', origin: 'stylesheet', kind: 'derived' });
    expect(attribute.valueSpan).toMatchObject({ start: { line: 7, column: 43 }, filename: 'p.dot' });
  });

  it('lets explicit node attributes win over every rule', () => {
    const explicit = source.replace(
      'critical_review [label="Critical Review", class="code"]',
      'critical_review [label="Critical Review", class="code", llm_model="local-model"]',
    );
    expect(model(explicit, 'critical_review')).toMatchObject({
      llmModel: 'local-model',
      llmProvider: 'openai',
    });
  });

  it('applies shape selectors below classes, and later rules win at equal specificity', () => {
    const dot = `digraph G {
      model_stylesheet="box { llm_model: a; reasoning_effort: low; } .fast { llm_model: b; } .fast { llm_model: c; }"
      one [shape=box]
      two [shape=box, class="fast"]
    }`;
    expect(model(dot, 'one')).toMatchObject({ llmModel: 'a', reasoningEffort: 'low' });
    expect(model(dot, 'two')).toMatchObject({ llmModel: 'c', reasoningEffort: 'low' });
  });

  it('overrides values from node default blocks, which are not explicit', () => {
    const dot = 'digraph G { model_stylesheet="#a { llm_model: styled; }"; node [llm_model=default]; a; b }';
    expect(model(dot, 'a').llmModel).toBe('styled');
    expect(model(dot, 'b').llmModel).toBe('default');
  });

  it('matches classes derived from subgraph labels', () => {
    const dot = `digraph G {
      model_stylesheet=".loop-a { llm_provider: gemini; }"
      subgraph cluster_x { label="Loop A"; inner }
      outer
    }`;
    expect(model(dot, 'inner').llmProvider).toBe('gemini');
    expect(model(dot, 'outer').llmProvider).toBeUndefined();
  });

  it('leaves the graph unchanged when the stylesheet does not parse', () => {
    const dot = 'digraph G { model_stylesheet="* { llm_model: a; "; a }';
    const { graph, diagnostics } = prepareGraph(dot);
    expect(graph!.node('a')!.llmModel).toBeUndefined();
    expect(diagnostics.map((diagnostic) => diagnostic.rule)).toContain('stylesheet_syntax');
  });
});
