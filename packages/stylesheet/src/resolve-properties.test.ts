import { describe, expect, it } from 'vitest';
import { modelStylesheetOf, readFixture } from '../test/read-corpus.js';
import { parseStylesheet } from './parse-stylesheet.js';
import { type ResolvedStyleProperty, resolveProperties, type StylesheetNode } from './resolve-properties.js';

function createNode(overrides: Partial<StylesheetNode> & Pick<StylesheetNode, 'id'>): StylesheetNode {
  return { shape: 'box', classes: [], ...overrides };
}

function valuesOf(resolved: Readonly<Record<string, ResolvedStyleProperty>>): Record<string, string> {
  return Object.fromEntries(Object.entries(resolved).map(([property, { value }]) => [property, value]));
}

describe('resolveProperties: the example of spec §8.6', () => {
  const stylesheet = parseStylesheet(modelStylesheetOf(readFixture('spec-8-6-example.dot'))!);

  it('parses the example without diagnostics', () => {
    expect(stylesheet.diagnostics).toEqual([]);
    expect(stylesheet.rules.map((rule) => rule.selector.kind)).toEqual(['universal', 'class', 'id']);
  });

  it('gives plan claude-sonnet-4-5 from the * rule (no class match for .code)', () => {
    const resolved = resolveProperties(stylesheet, createNode({ id: 'plan', classes: ['planning'] }));
    expect(valuesOf(resolved)).toEqual({ llm_model: 'claude-sonnet-4-5', llm_provider: 'anthropic' });
    expect(resolved.llm_model?.rule.selector.kind).toBe('universal');
  });

  it('gives implement claude-opus-4-6 from the .code rule', () => {
    const resolved = resolveProperties(stylesheet, createNode({ id: 'implement', classes: ['code'] }));
    expect(valuesOf(resolved)).toEqual({ llm_model: 'claude-opus-4-6', llm_provider: 'anthropic' });
    expect(resolved.llm_model?.rule.selector).toMatchObject({ kind: 'class', value: 'code' });
  });

  it('gives critical_review gpt-5.2 from the #critical_review rule, overriding the .code match', () => {
    const resolved = resolveProperties(stylesheet, createNode({ id: 'critical_review', classes: ['code'] }));
    expect(valuesOf(resolved)).toEqual({
      llm_model: 'gpt-5.2',
      llm_provider: 'openai',
      reasoning_effort: 'high',
    });
    expect(resolved.llm_model?.rule.selector).toMatchObject({ kind: 'id', value: 'critical_review' });
    expect(resolved.llm_model?.rule.order).toBe(2);
  });
});

describe('resolveProperties (spec §11.10)', () => {
  it('selects by shape name', () => {
    const stylesheet = parseStylesheet('box { llm_model: "claude-opus-4-6" }');
    expect(resolveProperties(stylesheet, createNode({ id: 'a', shape: 'box' })).llm_model?.value).toBe(
      'claude-opus-4-6',
    );
    expect(resolveProperties(stylesheet, createNode({ id: 'b', shape: 'hexagon' }))).toEqual({});
  });

  it('selects by class name', () => {
    const stylesheet = parseStylesheet('.fast { llm_model: "gemini-3-flash-preview" }');
    expect(
      resolveProperties(stylesheet, createNode({ id: 'a', classes: ['slow', 'fast'] })).llm_model?.value,
    ).toBe('gemini-3-flash-preview');
    expect(resolveProperties(stylesheet, createNode({ id: 'b', classes: ['faster'] }))).toEqual({});
  });

  it('selects by node id', () => {
    const stylesheet = parseStylesheet('#review { reasoning_effort: "high" }');
    expect(resolveProperties(stylesheet, createNode({ id: 'review' })).reasoning_effort?.value).toBe('high');
    expect(resolveProperties(stylesheet, createNode({ id: 'reviewer' }))).toEqual({});
  });

  it('orders specificity universal < shape < class < id, whatever the source order', () => {
    const node = createNode({ id: 'n', shape: 'box', classes: ['c'] });
    const all = [
      '#n { llm_model: id }',
      '.c { llm_model: class }',
      'box { llm_model: shape }',
      '* { llm_model: universal }',
    ];
    for (const rules of [all, [...all].reverse()]) {
      expect(resolveProperties(parseStylesheet(rules.join('\n')), node).llm_model?.value).toBe('id');
      expect(
        resolveProperties(parseStylesheet(rules.filter((rule) => !rule.startsWith('#')).join('\n')), node)
          .llm_model?.value,
      ).toBe('class');
    }
    expect(
      resolveProperties(parseStylesheet('box { llm_model: shape } * { llm_model: universal }'), node)
        .llm_model?.value,
    ).toBe('shape');
    expect(
      resolveProperties(parseStylesheet('* { llm_model: universal } box { llm_model: shape }'), node)
        .llm_model?.value,
    ).toBe('shape');
  });
});

describe('resolveProperties source order (spec §8.3)', () => {
  it('lets the later of two rules with equal specificity win', () => {
    const stylesheet = parseStylesheet('.a { llm_model: first } .b { llm_model: second }');
    const resolved = resolveProperties(stylesheet, createNode({ id: 'n', classes: ['b', 'a'] }));
    expect(resolved.llm_model?.value).toBe('second');
    expect(resolved.llm_model?.rule.order).toBe(1);
  });

  it('lets a later declaration in the same rule win', () => {
    const stylesheet = parseStylesheet('* { llm_model: first; llm_model: second }');
    const resolved = resolveProperties(stylesheet, createNode({ id: 'n' }));
    expect(resolved.llm_model?.value).toBe('second');
    expect(resolved.llm_model?.declaration.valueSpan).toEqual({ offset: 33, length: 6 });
  });

  it('resolves each property on its own', () => {
    const stylesheet = parseStylesheet(
      '* { llm_model: m0; llm_provider: p0; reasoning_effort: low } .code { llm_model: m2 } #n { reasoning_effort: high }',
    );
    expect(valuesOf(resolveProperties(stylesheet, createNode({ id: 'n', classes: ['code'] })))).toEqual({
      llm_model: 'm2',
      llm_provider: 'p0',
      reasoning_effort: 'high',
    });
  });

  it('matches selectors case-sensitively', () => {
    const stylesheet = parseStylesheet(
      '#Review { llm_model: a } .Code { llm_model: b } Box { llm_model: c }',
    );
    expect(
      resolveProperties(stylesheet, createNode({ id: 'review', shape: 'box', classes: ['code'] })),
    ).toEqual({});
  });

  it('never applies a declaration that has a diagnostic', () => {
    const stylesheet = parseStylesheet('* { modle: a; reasoning_effort: extreme; llm_provider: openai }');
    expect(valuesOf(resolveProperties(stylesheet, createNode({ id: 'n' })))).toEqual({
      llm_provider: 'openai',
    });
  });

  it('resolves nothing from an empty stylesheet', () => {
    expect(resolveProperties(parseStylesheet(''), createNode({ id: 'n' }))).toEqual({});
  });
});
