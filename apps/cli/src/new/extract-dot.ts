/**
 * The DOT text of a model's answer (`attractor new`): the first fenced block that holds a digraph (```dot,
 * ```graphviz or a bare fence), else the text from the first `digraph` to the last `}`. `undefined` when the answer
 * has no digraph. Pure.
 */
export function extractDot(answer: string): string | undefined {
  for (const match of answer.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) {
    const body = match[1] ?? '';
    if (/\bdigraph\b/.test(body)) return `${body.trim()}\n`;
  }
  const start = answer.search(/\b(strict\s+)?digraph\b/);
  const end = answer.lastIndexOf('}');
  if (start === -1 || end < start) return undefined;
  return `${answer.slice(start, end + 1).trim()}\n`;
}
