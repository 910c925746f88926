import { describe, expect, it } from 'vitest';
import { expandVariables, itemVariableNames } from './expand-variables.js';

describe('expandVariables (spec §4.5, §9.2, §9.4)', () => {
  it('replaces $goal by plain string replacement, also inside a longer word', () => {
    expect(expandVariables('Plan: $goal. Goals: $goals', { goal: 'ship it' }).text).toBe(
      'Plan: ship it. Goals: ship its',
    );
  });

  it('leaves $context.<key> as written without a context (prompts)', () => {
    expect(expandVariables('Use $context.base', { goal: 'g' })).toEqual({
      text: 'Use $context.base',
      missingKeys: [],
    });
  });

  it('replaces $context.<key> by the exact (dotted) key and stops at the first other character', () => {
    const context = { base: 'main', 'tool.output': 'ok\n', 'parallel.results': [{ branch: 'a' }] };
    expect(
      expandVariables('jj diff --from $context.base@origin; $context.tool.output|$context.parallel.results', {
        goal: '',
        context,
      }).text,
    ).toBe('jj diff --from main@origin; ok\n|[{"branch":"a"}]');
  });

  it('does not take a trailing dot into the key', () => {
    expect(expandVariables('Branch $context.base.', { goal: '', context: { base: 'main' } }).text).toBe(
      'Branch main.',
    );
  });

  it('writes numbers and booleans as JSON', () => {
    expect(
      expandVariables('$context.round/$context.done', { goal: '', context: { round: 3, done: false } }).text,
    ).toBe('3/false');
  });

  it('lists keys that are not in the context, once each, and leaves them as written', () => {
    expect(
      expandVariables('$context.base $context.head $context.base', { goal: '', context: { other: 'x' } }),
    ).toEqual({ text: '$context.base $context.head $context.base', missingKeys: ['base', 'head'] });
  });

  it('keeps shell variables and never expands a value again', () => {
    expect(
      expandVariables('echo $HOME $(pwd) $ $context.note', {
        goal: 'G',
        context: { note: '$goal $context.note' },
      }).text,
    ).toBe('echo $HOME $(pwd) $ $goal $context.note');
  });
});

describe('expandVariables: $input.<name> (README "Typed data")', () => {
  it('replaces inputs by name (strings as is, other values as JSON), a left-out input by nothing', () => {
    expect(
      expandVariables('gh issue view $input.issue -R $input.repo $input.labels[$input.missing]', {
        goal: '',
        inputs: { repo: 'acme/api', issue: 42, labels: ['bug'] },
      }).text,
    ).toBe('gh issue view 42 -R acme/api ["bug"][]');
  });

  it('leaves $input.<name> as written without inputs', () => {
    expect(expandVariables('Review $input.repo', { goal: '' }).text).toBe('Review $input.repo');
  });
});

describe('expandVariables: $item.<name> (README "Typed data", foreach)', () => {
  it('replaces a bound item (a string as is, other values as JSON), or its reference; an unbound name stays', () => {
    const items = { file: 'src/a.ts', pair: { x: 1 } };
    expect(expandVariables('Review $item.file.txt $item.pair $item.other', { goal: '', items }).text).toBe(
      'Review src/a.ts.txt {"x":1} $item.other',
    );
    expect(
      expandVariables('wc -l "$item.file"', { goal: '', items, itemReference: (name) => `<ITEM_${name}>` })
        .text,
    ).toBe('wc -l "<ITEM_file>"');
    expect(expandVariables('Review $item.file', { goal: '' }).text).toBe('Review $item.file');
  });

  it('lists the $item.<name> references once each, in order', () => {
    expect(itemVariableNames('$item.a $item.b $item.a')).toEqual([
      { name: 'a', offset: 0 },
      { name: 'b', offset: 8 },
    ]);
  });
});
