/** Pipelines of the server benchmarks. */

/**
 * A realistic 17-node pipeline (prompts, a stylesheet, a parallel block, a goal gate with its retry loop, a
 * conditional), or `copies` of it one after the other (`realisticPipeline(330)`: 4,952 nodes, ~460 KB), with `goal`.
 */
export function realisticPipeline(copies: number, goal = 'Ship the release notes'): string {
  const lines = [
    'digraph Review {',
    `  graph [goal="${goal}", model_stylesheet="* { llm_model: gpt-5.2; } .careful { reasoning_effort: high; }"]`,
    '  node [shape=box, timeout="15m"]',
    '  start [shape=Mdiamond]',
    '  done [shape=Msquare]',
  ];
  let previous = 'start';
  for (let copy = 0; copy < copies; copy++) {
    const id = (name: string) => `${name}_${copy}`;
    lines.push(
      `  ${id('plan')} [prompt="Plan the work for $goal. List the files to change and the tests to add.", class="careful"]`,
      `  ${id('implement')} [prompt="Implement the plan step by step; keep the diff small and focused.", max_retries=2]`,
      `  ${id('fan')} [shape=component, max_parallel=3]`,
      `  ${id('lint')} [prompt="Run the linters and summarise every finding."]`,
      `  ${id('test')} [prompt="Run the test suite and report failures with their stack traces."]`,
      `  ${id('docs')} [prompt="Update the documentation for the change."]`,
      `  ${id('join')} [shape=tripleoctagon]`,
      `  ${id('review')} [prompt="Review the change as a senior engineer would.", goal_gate=true, retry_target="${id('implement')}"]`,
      `  ${id('fix')} [prompt="Fix what the review found."]`,
      `  ${id('check')} [shape=diamond]`,
      `  ${id('summary')} [prompt="Summarise what changed for the release notes."]`,
      `  ${id('polish')} [prompt="Polish the summary's wording."]`,
      `  ${id('publish')} [prompt="Prepare the publication checklist."]`,
      `  ${id('verify')} [prompt="Verify the checklist item by item."]`,
      `  ${id('final')} [prompt="Write the final note."]`,
      `  ${previous} -> ${id('plan')} -> ${id('implement')} -> ${id('fan')}`,
      `  ${id('fan')} -> ${id('lint')} -> ${id('join')}`,
      `  ${id('fan')} -> ${id('test')} -> ${id('join')}`,
      `  ${id('fan')} -> ${id('docs')} -> ${id('join')}`,
      `  ${id('join')} -> ${id('review')} -> ${id('check')}`,
      `  ${id('check')} -> ${id('fix')} [condition="outcome=fail", label="Fix"]`,
      `  ${id('fix')} -> ${id('review')}`,
      `  ${id('check')} -> ${id('summary')} [condition="outcome=success", label="Ship"]`,
      `  ${id('summary')} -> ${id('polish')} -> ${id('publish')} -> ${id('verify')} -> ${id('final')}`,
    );
    previous = id('final');
  }
  lines.push(`  ${previous} -> done`, '}');
  return lines.join('\n');
}

/** A run that waits at a human gate: start, the gate, done. */
export const gatePipeline = `digraph Gate {
  start [shape=Mdiamond]
  ask [shape=hexagon, label="Ship it?"]
  done [shape=Msquare]
  start -> ask
  ask -> done [label="[Y] Yes"]
  ask -> done [label="[N] No"]
}
`;
