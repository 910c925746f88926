/** Lint helpers: prepare DOT source and summarise its diagnostics as `"<severity> <rule> <target>"`. */
import { type Diagnostic, prepareGraph } from '@attractor/graph';

/** `"<severity> <rule> <node id | from->to | (graph)>"`, the format of packages/graph/test/corpus-diagnostics.json. */
export function describeDiagnostic(diagnostic: Diagnostic): string {
  const target = diagnostic.edge
    ? `${diagnostic.edge.from}->${diagnostic.edge.to}`
    : (diagnostic.nodeId ?? '(graph)');
  return `${diagnostic.severity} ${diagnostic.rule} ${target}`;
}

/** The diagnostics of `source` from the named rules, described with {@link describeDiagnostic}. */
export function lint(source: string, ...rules: string[]): string[] {
  return prepareGraph(source, { filename: 'lint.dot' })
    .diagnostics.filter((diagnostic) => rules.length === 0 || rules.includes(diagnostic.rule))
    .map(describeDiagnostic);
}
