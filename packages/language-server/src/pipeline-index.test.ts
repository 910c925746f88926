import { describe, expect, it } from 'vitest';
import { decodedOffsets, indexPipeline } from './pipeline-index.js';

describe('indexPipeline', () => {
  it('finds nodes, edges, attributes, classes, files and variables', () => {
    const text = `digraph G {
  graph [goal="Ship", model_stylesheet=".fast { llm_model: m; } #review { reasoning_effort: low; }"]
  // a comment with review -> nowhere
  node [shape=box]
  review [class="fast, deep", prompt="@prompts/review.md", retry_target=fix]
  fix [prompt="Fix for $goal"]
  sub [type="subgraph", graph_ref="child.dot"]
  subgraph cluster_a { label="Deep Work"; x }
  review -> fix -> review [condition="outcome=fail"]
}
`;
    const index = indexPipeline(text);
    expect(index.graphId?.name).toBe('G');
    expect([...index.nodes.keys()]).toEqual(['review', 'fix', 'sub', 'x']);
    expect(index.nodes.get('review')!.attributes.get('shape')).toBe('box');
    const at = (id: string) =>
      index.occurrences
        .filter((item) => item.id === id)
        .map((item) => [text.slice(item.start, item.end), item.kind]);
    expect(at('review')).toEqual([
      ['review', 'reference'],
      ['review', 'statement'],
      ['review', 'edge'],
      ['review', 'edge'],
    ]);
    expect(at('fix')).toEqual([
      ['fix', 'reference'],
      ['fix', 'statement'],
      ['fix', 'edge'],
    ]);
    expect(index.edges.map((edge) => `${edge.from}->${edge.to} ${edge.condition}`)).toEqual([
      'review->fix outcome=fail',
      'fix->review outcome=fail',
    ]);
    expect(index.classes.map((item) => [item.name, item.kind, text.slice(item.start, item.end)])).toEqual([
      ['fast', 'selector', 'fast'],
      ['fast', 'class', 'fast'],
      ['deep', 'class', 'deep'],
      ['deep-work', 'subgraph', '"Deep Work"'],
    ]);
    expect(index.files.map((file) => [file.key, file.path])).toEqual([
      ['prompt', 'prompts/review.md'],
      ['graph_ref', 'child.dot'],
    ]);
    expect(index.variables.map((item) => text.slice(item.start, item.end))).toEqual(['$goal']);
    expect(index.subgraphs[0]).toMatchObject({ label: 'Deep Work', nodes: ['x'] });
  });

  it('keeps going through text that does not parse yet (a list, a string left open while typing)', () => {
    const text =
      'digraph G {\n  a [label="A", sha\n  b [shape=box]\n  a -> b\n  c [prompt="never closed\n}\n';
    const index = indexPipeline(text);
    expect([...index.nodes.keys()]).toEqual(['a', 'b', 'c']);
    expect(index.lists[0]).toMatchObject({ closed: false });
    expect(index.attributes.map((attribute) => attribute.key)).toEqual(['label', 'sha', 'shape', 'prompt']);
    expect(index.edges).toHaveLength(1);
  });

  it('places variables and classes in plain, escaped and concatenated values where they are written', () => {
    const text = [
      'digraph G {',
      '  a [prompt="Do $goal now", class="x,y"]',
      '  b [prompt="Say \\"$goal\\" \\d $context.k", class="\\d,z"]',
      '  c [prompt="One " + "$goal"]',
      '}',
    ].join('\n');
    const index = indexPipeline(text);
    expect(index.variables.map((item) => [item.name, text.slice(item.start, item.end)])).toEqual([
      ['goal', '$goal'],
      ['goal', '$goal'],
      ['context.k', '$context.k'],
      ['goal', '$goal'],
    ]);
    expect(index.classes.map((item) => [item.name, text.slice(item.start, item.end)])).toEqual([
      ['x', 'x'],
      ['y', 'y'],
      ['\\d', '\\d'],
      ['z', 'z'],
    ]);
  });

  it('maps a decoded value back to where each character was written (escapes, concatenation)', () => {
    const text = 'x="a\\"b" + "c"';
    const offsets = decodedOffsets(text, { start: 2, end: text.length });
    // a " b c, then one past the end: the closing quote.
    expect(offsets.map((offset) => text[offset])).toEqual(['a', '\\', 'b', 'c', '"']);
  });
});
