// A generated pipeline of `count` LLM stages between start and exit, chained by conditional edges, each with a label,
// a prompt and retries (about 1.4 MB at 10,000 stages): the large file of the language server's test and benchmark.
/**
 * @param {number} count
 * @returns {string}
 */
export function generatePipeline(count) {
  const lines = ['digraph Generated {', '  graph [goal="A large pipeline", default_max_retries=1]', ''];
  lines.push('  start [shape=Mdiamond, label="Start"]', '  exit [shape=Msquare, label="Exit"]');
  for (let index = 0; index < count; index++) {
    lines.push(
      `  stage_${index} [label="Stage ${index}", prompt="Implement step ${index} for $goal.", max_retries=2]`,
    );
  }
  lines.push('  start -> stage_0');
  for (let index = 0; index + 1 < count; index++) {
    lines.push(`  stage_${index} -> stage_${index + 1} [condition="outcome=success"]`);
  }
  lines.push(`  stage_${count - 1} -> exit [condition="outcome=success"]`, '}', '');
  return lines.join('\n');
}
