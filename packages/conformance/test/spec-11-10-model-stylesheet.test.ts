/** Spec §11.10 Model Stylesheet: one test per checkbox, through prepareGraph (the stylesheet transform). */
import { parseStylesheet, resolveProperties } from '@attractor/stylesheet';
import { describe, expect, it } from 'vitest';
import { graphFrom } from './support/run-dot.js';

function styled(stylesheet: string, nodes: string) {
  return graphFrom(`digraph G {
    graph [model_stylesheet="${stylesheet}"]
    start [shape=Mdiamond]; exit [shape=Msquare]
    ${nodes}
  }`);
}

describe('§11.10 Model Stylesheet', () => {
  it("Stylesheet is parsed from the graph's `model_stylesheet` attribute", () => {
    const parsed = parseStylesheet(
      '* { llm_model: base; } .fast { llm_model: quick; reasoning_effort: low; }',
    );
    expect(parsed.rules.map((rule) => [rule.selector.kind, rule.selector.value])).toEqual([
      ['universal', ''],
      ['class', 'fast'],
    ]);
    const graph = styled(
      '* { llm_model: base-model; llm_provider: openai; }',
      'a [prompt="a"]; start -> a -> exit',
    );
    expect(graph.node('a')).toMatchObject({ llmModel: 'base-model', llmProvider: 'openai' });
  });

  it('Selectors by shape name work (e.g., `box { llm_model: "claude-opus-4-6" }`)', () => {
    const graph = styled(
      'box { llm_model: \\"claude-opus-4-6\\"; }',
      'a [prompt="a"]; t [shape=parallelogram, tool_command="true"]; start -> a -> t -> exit',
    );
    expect(graph.node('a')!.llmModel).toBe('claude-opus-4-6');
    expect(graph.node('t')!.llmModel).toBeUndefined();
  });

  it('Selectors by class name work (e.g., `.fast { llm_model: "gemini-3-flash-preview" }`)', () => {
    const graph = styled(
      '.fast { llm_model: \\"gemini-3-flash-preview\\"; }',
      'a [prompt="a", class="cheap,fast"]; b [prompt="b", class="slow"]; start -> a -> b -> exit',
    );
    expect(graph.node('a')!.llmModel).toBe('gemini-3-flash-preview');
    expect(graph.node('b')!.llmModel).toBeUndefined();
  });

  it('Selectors by node ID work (e.g., `#review { reasoning_effort: "high" }`)', () => {
    const graph = styled(
      '* { reasoning_effort: low; } #review { reasoning_effort: \\"high\\"; }',
      'review [prompt="r"]; other [prompt="o"]; start -> review -> other -> exit',
    );
    expect(graph.node('review')!.reasoningEffort).toBe('high');
    expect(graph.node('other')!.reasoningEffort).toBe('low');
  });

  it('Specificity order: universal < shape < class < ID', () => {
    // Rules listed from most to least specific, so source order cannot be what decides.
    const sheet =
      '#n4 { llm_model: by-id; } .c { llm_model: by-class; } box { llm_model: by-shape; } * { llm_model: by-universal; }';
    const graph = styled(
      sheet,
      `n1 [shape=parallelogram, tool_command="true"]; n2 [prompt="2"]; n3 [prompt="3", class="c"]; n4 [prompt="4", class="c"]
       start -> n1 -> n2 -> n3 -> n4 -> exit`,
    );
    expect(['n1', 'n2', 'n3', 'n4'].map((id) => graph.node(id)!.llmModel)).toEqual([
      'by-universal',
      'by-shape',
      'by-class',
      'by-id',
    ]);
    const resolved = resolveProperties(parseStylesheet(sheet), { id: 'n4', shape: 'box', classes: ['c'] });
    expect(resolved.llm_model!.value).toBe('by-id');
  });

  it('Stylesheet properties are overridden by explicit node attributes', () => {
    const graph = styled(
      '#a { llm_model: from-sheet; reasoning_effort: low; }',
      'a [prompt="a", llm_model="explicit"]; start -> a -> exit',
    );
    expect(graph.node('a')).toMatchObject({ llmModel: 'explicit', reasoningEffort: 'low' });
    expect(graph.node('a')!.attributes.llm_model).toMatchObject({ value: 'explicit', origin: 'explicit' });
  });
});
