import { describe, expect, it } from 'vitest';
import { formatDot } from './format-dot.js';

describe('formatDot', () => {
  it('lays out statements, keeps quoting as written and every comment where it was', () => {
    const source = `/* file */ DIGRAPH G { // after the brace
  NODE [shape=box] EDGE [weight=1]
  a [label=A, "x.y"="1"] /* after a */ b
  # a preprocessor line

  // before the chain
  a -> b -> c [label="go" /* in the list */, weight=2]
  subgraph s { c [label="C"] // inside
  }
  {}
  // last
}
// trailer
`;
    expect(formatDot(source)).toBe(`/* file */
digraph G {
  // after the brace
  node [shape=box]
  edge [weight=1]
  a [label=A, "x.y"="1"] /* after a */
  b
  # a preprocessor line

  // before the chain
  a -> b -> c [
    label="go", /* in the list */
    weight=2
  ]
  subgraph s {
    c [label="C"] // inside
  }
  {}
  // last
}
// trailer
`);
  });

  it('orders and quotes attributes by the given policy, keeping the written order of equal ranks', () => {
    const formatted = formatDot('digraph G { a [z=1, b="two", a=x, b="three"] }', {
      attributeRank: (key) => (key === 'z' ? 1 : 0),
      bareValue: (key) => key !== 'a',
    });
    expect(formatted).toBe('digraph G {\n  a [b=two, a="x", b=three, z=1]\n}\n');
  });

  it('is idempotent on its own output', () => {
    const source = 'digraph G {\n  a [p="x" +\n  "y", q="a" + "b"]\n  // c\n}\n';
    const once = formatDot(source);
    expect(once).toBe('digraph G {\n  a [\n    p="x" +\n      "y",\n    q="a" + "b"\n  ]\n  // c\n}\n');
    expect(formatDot(once)).toBe(once);
  });
});
