import type { Diagnostic, PrepareGraphOptions } from '../src/index.js';
import { prepareGraph } from '../src/index.js';

/** `"<severity> <line>:<column> <node id> <from>-><to>"`, omitting the parts a diagnostic lacks. */
export function summarize(diagnostic: Diagnostic): string {
  const at = diagnostic.span ? `${diagnostic.span.start.line}:${diagnostic.span.start.column}` : '-';
  const edge = diagnostic.edge ? `${diagnostic.edge.from}->${diagnostic.edge.to}` : '';
  return [diagnostic.severity, at, diagnostic.nodeId ?? '', edge].filter((part) => part !== '').join(' ');
}

/** Prepares `source` and returns the summaries of the diagnostics of one rule, in order. */
export function lintRule(source: string, rule: string, options: PrepareGraphOptions = {}): string[] {
  return prepareGraph(source, { filename: 'test.dot', ...options })
    .diagnostics.filter((diagnostic) => diagnostic.rule === rule)
    .map(summarize);
}

/** Prepares `source` and returns the diagnostics of one rule. */
export function diagnosticsOf(source: string, rule: string, options: PrepareGraphOptions = {}): Diagnostic[] {
  return prepareGraph(source, { filename: 'test.dot', ...options }).diagnostics.filter(
    (diagnostic) => diagnostic.rule === rule,
  );
}
