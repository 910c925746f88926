// Generated DOT pipelines for the benchmarks.

/**
 * A pipeline of `count` codergen stages in a chain with a fail loop back to the previous stage, a goal gate every
 * 50 stages, a stylesheet with universal, class and id rules, and node defaults: what the linter has to look at
 * in real files, at scale (the 10,000-node file is about 1.6 MB).
 */
export function generatedPipeline(count) {
  const lines = [
    'digraph Generated {',
    '  graph [goal="Benchmark pipeline", default_max_retries=1, retry_target=stage_0,',
    '         model_stylesheet="* { llm_model: base; } .review { reasoning_effort: low; } #stage_7 { llm_model: big; }"]',
    '  node [shape=box, timeout="15m"]',
    '  start [shape=Mdiamond, label="Start"]',
    '  exit [shape=Msquare, label="Exit"]',
  ];
  for (let index = 0; index < count; index++) {
    const extra = index % 50 === 0 ? ', goal_gate=true' : '';
    const klass = index % 3 === 0 ? ', class="review"' : '';
    lines.push(
      `  stage_${index} [label="Stage ${index}", prompt="Implement step ${index} of $goal.", max_retries=2${klass}${extra}]`,
    );
  }
  lines.push('  start -> stage_0');
  for (let index = 0; index + 1 < count; index++) {
    lines.push(`  stage_${index} -> stage_${index + 1} [condition="outcome=success"]`);
    if (index > 0)
      lines.push(`  stage_${index} -> stage_${index - 1} [condition="outcome=fail", label="Back"]`);
  }
  lines.push(`  stage_${count - 1} -> exit [condition="outcome=success"]`);
  lines.push(`  stage_${count - 1} -> stage_0 [condition="outcome=fail", label="Restart"]`, '}', '');
  return lines.join('\n');
}

/** A plain chain start -> n1 -> ... -> nN -> exit of codergen stages (for `run --simulate`). */
export function chainPipeline(count) {
  const ids = Array.from({ length: count }, (_, index) => `n${index + 1}`);
  return [
    'digraph Chain {',
    `  graph [goal="Chain of ${count}", max_steps=${count + 10}]`,
    '  start [shape=Mdiamond]; exit [shape=Msquare]',
    ...ids.map((id) => `  ${id} [prompt="Step ${id}"]`),
    `  start -> ${ids.join(' -> ')} -> exit`,
    '}',
    '',
  ].join('\n');
}

/** One parallel node fanning out to `branches` tool nodes running `command`, joined by a fan-in. */
export function parallelPipeline({ branches, maxParallel, command }) {
  const ids = Array.from({ length: branches }, (_, index) => `b${index + 1}`);
  return [
    'digraph Parallel {',
    '  start [shape=Mdiamond]; exit [shape=Msquare]',
    `  fan [shape=component, max_parallel=${maxParallel}]`,
    '  join [shape=tripleoctagon]',
    ...ids.map((id) => `  ${id} [shape=parallelogram, tool_command="${command}"]`),
    '  start -> fan',
    ...ids.map((id) => `  fan -> ${id}; ${id} -> join`),
    '  join -> exit',
    '}',
    '',
  ].join('\n');
}
