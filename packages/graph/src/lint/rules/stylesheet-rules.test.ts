import { describe, expect, it } from 'vitest';
import { diagnosticsOf, lintRule } from '../../../test/lint-summary.js';

function withStylesheet(stylesheet: string): string {
  return `digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  model_stylesheet="${stylesheet}"\n  work [prompt="x", class="code"]\n  start -> work -> exit\n}`;
}

describe('stylesheet_syntax (spec §7.2, §8.2)', () => {
  it('reports an unparseable stylesheet at the failure position inside the attribute', () => {
    const source = withStylesheet('* { llm_model gpt; }');
    expect(lintRule(source, 'stylesheet_syntax')).toEqual(['error 4:35']);
  });

  it('accepts a valid stylesheet', () => {
    expect(lintRule(withStylesheet('* { llm_model: gpt; }'), 'stylesheet_syntax')).toEqual([]);
  });
});

describe('stylesheet_property (spec §8.4)', () => {
  it('reports the stylesheet parser findings at their place in the DOT file', () => {
    const source = withStylesheet('* { modle: gpt; reasoning_effort: extreme; }');
    expect(lintRule(source, 'stylesheet_property')).toEqual(['warning 4:25', 'error 4:55']);
    expect(diagnosticsOf(source, 'stylesheet_property')[0]?.fix).toContain('llm_model');
  });

  it("reports Fabro's model: and Amplifier's model globs as dialect_alias, errors under strict (issue 19)", () => {
    const source = withStylesheet('* { model: gpt; } #wo* { llm_model: claude-sonnet-*; }');
    expect(lintRule(source, 'stylesheet_property')).toEqual([]);
    expect(lintRule(source, 'dialect_alias')).toEqual(['warning 4:25', 'warning 4:39', 'warning 4:57']);
    expect(lintRule(source, 'dialect_alias', { strict: true })).toEqual([
      'error 4:25',
      'error 4:39',
      'error 4:57',
    ]);
    expect(lintRule(source, 'stylesheet_selector_unmatched')).toEqual([]);
  });

  it('reports a backend the stylesheet names that does not exist, with a did-you-mean', () => {
    const source = withStylesheet('* { backend: claude-cod; }');
    expect(lintRule(source, 'stylesheet_property')).toEqual(['error 4:34']);
    expect(diagnosticsOf(source, 'stylesheet_property')[0]?.fix).toBe('Write backend: claude-code.');
    expect(lintRule(withStylesheet('.fast { backend: codex; }'), 'stylesheet_property')).toEqual([]);
  });

  it('is silent for recognised properties', () => {
    expect(lintRule(withStylesheet('* { llm_provider: openai; }'), 'stylesheet_property')).toEqual([]);
  });
});

describe('stylesheet_selector_unmatched (spec §8.3)', () => {
  it('reports id and class selectors that match no node, with a suggestion', () => {
    const source = withStylesheet('#wrok { llm_model: a; } .cod { llm_model: b; }');
    expect(lintRule(source, 'stylesheet_selector_unmatched')).toEqual(['warning 4:21', 'warning 4:45']);
    expect(diagnosticsOf(source, 'stylesheet_selector_unmatched').map((d) => d.fix)).toEqual([
      'Change the selector to "#work".',
      'Change the selector to ".code".',
    ]);
  });

  it('places each of many findings in a long stylesheet written over several lines, escapes included (issue 34 §14)', () => {
    // One rule per line after a comment with escaped quotes; each selector matches no node.
    const rules = Array.from({ length: 300 }, (_, index) => `#n${index} { llm_model: \\"m${index}\\"; }`);
    const source = withStylesheet(`/* \\"x\\" */\n${rules.join('\n')}`);
    const found = lintRule(source, 'stylesheet_selector_unmatched');
    expect(found).toHaveLength(300);
    // Line 4 holds the attribute's first line; rule i is on line 5 + i, its selector at column 1.
    expect(found.slice(0, 2)).toEqual(['warning 5:1', 'warning 6:1']);
    expect(found.at(-1)).toBe('warning 304:1');
  });

  it('reports a Graphviz shape no node uses', () => {
    expect(lintRule(withStylesheet('hexagon { llm_model: a; }'), 'stylesheet_selector_unmatched')).toEqual([
      'warning 4:21',
    ]);
  });

  it('is silent when every selector matches', () => {
    const source = withStylesheet(
      '* { llm_model: a; } box { llm_model: b; } .code { llm_model: c; } #work { llm_model: d; }',
    );
    expect(lintRule(source, 'stylesheet_selector_unmatched')).toEqual([]);
  });
});
