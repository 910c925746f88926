/** Generated pipelines for the scale tests and the benchmark. */

/** A pipeline of `count` nodes: start, a gate (so a page can open before the work), a chain of LLM stages, done. */
export function chainPipeline(count: number): string {
  const stages = Array.from({ length: count - 3 }, (_, index) => `s${index + 1}`);
  return [
    'digraph chain {',
    '  start [shape=Mdiamond]',
    '  go [shape=hexagon, label="Go?"]',
    ...stages.map((id) => `  ${id} [prompt="Work on ${id}"]`),
    '  done [shape=Msquare]',
    '  start -> go',
    `  go -> ${stages[0]} [label="[G] Go"]`,
    `  ${stages.join(' -> ')} -> done`,
    '}',
  ].join('\n');
}
