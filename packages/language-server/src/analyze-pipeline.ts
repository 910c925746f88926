import { type Diagnostic as LintDiagnostic, type PrepareGraphOptions, prepareGraph } from '@attractor/graph';
import type { Diagnostic, Range, TextEdit } from 'vscode-languageserver';
import { epochNow } from './analysis-phase.js';

/** LSP `DiagnosticSeverity` values. */
const SEVERITY = { error: 1, warning: 2, info: 3 } as const;

/** What a diagnostic's `data` holds: the fix's edits, for the quick fix. */
export interface DiagnosticData {
  readonly edits?: readonly TextEdit[];
}

/**
 * Parses, transforms and lints a pipeline's text (`prepareGraph`, spec §9.1) and returns its diagnostics in LSP form:
 * the range of the parser's or the rule's span, severity, the rule as `code`, the message with its `fix:` line, and
 * the rule's mechanical fix as `data.edits`. Diagnostics located in another file (none today) and ones without a
 * span are put on the first character. Never throws on user content.
 */
export function analyzePipeline(
  text: string,
  options: PrepareGraphOptions & {
    /** Called with the time (epoch milliseconds) when linting ended and converting to LSP began. */
    readonly onLinted?: (at: number) => void;
  },
): Diagnostic[] {
  const { diagnostics } = prepareGraph(text, options);
  options.onLinted?.(epochNow());
  return diagnostics.map((diagnostic) => toLspDiagnostic(diagnostic, options.filename));
}

function toLspDiagnostic(diagnostic: LintDiagnostic, filename: string | undefined): Diagnostic {
  const span = diagnostic.span;
  const here = span !== undefined && (span.filename === undefined || span.filename === filename);
  const range = here ? spanRange(span) : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const edits = diagnostic.edits?.map((edit) => ({ range: spanRange(edit.span), newText: edit.text }));
  const data: DiagnosticData = edits === undefined ? {} : { edits };
  return {
    range,
    severity: SEVERITY[diagnostic.severity],
    code: diagnostic.rule,
    source: 'attractor',
    message:
      diagnostic.fix === undefined ? diagnostic.message : `${diagnostic.message}\nfix: ${diagnostic.fix}`,
    data,
  };
}

/** A span's range: lines and columns are 1-based in spans, 0-based in LSP; both count UTF-16 code units. */
function spanRange(span: NonNullable<LintDiagnostic['span']>): Range {
  return {
    start: { line: span.start.line - 1, character: span.start.column - 1 },
    end: { line: span.end.line - 1, character: span.end.column - 1 },
  };
}
