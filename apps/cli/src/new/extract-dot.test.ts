import { describe, expect, it } from 'vitest';
import { extractDot } from './extract-dot.js';

describe('extractDot', () => {
  it('takes the first fenced block that holds a digraph, whatever its language tag', () => {
    const answer =
      'Plan:\n```text\nnot a graph\n```\nThe pipeline:\n```graphviz\ndigraph A {\n  a -> b\n}\n```\n```dot\ndigraph B {}\n```';
    expect(extractDot(answer)).toBe('digraph A {\n  a -> b\n}\n');
  });

  it('takes the text from the first digraph to the last brace when nothing is fenced', () => {
    expect(extractDot('Sure. strict digraph S { a -> b [label="}"] } Done.')).toBe(
      'strict digraph S { a -> b [label="}"] }\n',
    );
  });

  it('is undefined for an answer without a digraph', () => {
    expect(extractDot('I cannot write DOT.')).toBeUndefined();
    expect(extractDot('```\ngraph G { a -- b }\n```')).toBeUndefined();
  });
});
