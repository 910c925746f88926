import { formatCodeFrame } from '@attractor/dot';
import type { Diagnostic } from './diagnostic.js';

/**
 * Renders a diagnostic like a compiler does (spec §7.1):
 *
 * ```text
 * pipeline.dot:12:18: error[attribute_type]: Node "plan" has timeout="soon", which is not valid: ...
 *   12 |   plan [timeout="soon"]
 *      |                 ^^^^^^
 *   fix: Write timeout as a duration such as 250ms, 900s, 15m, 2h or 1d.
 * ```
 *
 * The excerpt (from `@attractor/dot`'s `formatCodeFrame`) is shown when `source` is given and the
 * diagnostic has a span. The location prefix is `file:line:col` (file from the span, else `options.filename`,
 * else `<input>`), or just the file when the diagnostic has no span (a finding about the whole graph, such as
 * a missing start node).
 */
export function formatDiagnostic(
  diagnostic: Diagnostic,
  source?: string,
  options: { readonly filename?: string } = {},
): string {
  const span = diagnostic.span;
  const file = span?.filename ?? options.filename ?? '<input>';
  const where = span ? `${file}:${span.start.line}:${span.start.column}` : file;
  const lines = [`${where}: ${diagnostic.severity}[${diagnostic.rule}]: ${diagnostic.message}`];
  if (span && source !== undefined) {
    lines.push(formatCodeFrame(source, { start: span.start, end: span.end }, { contextLines: 0 }));
  }
  if (diagnostic.fix) lines.push(`  fix: ${diagnostic.fix}`);
  return lines.join('\n');
}
