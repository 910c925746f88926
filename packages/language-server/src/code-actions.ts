import { type CodeAction, CodeActionKind, type Diagnostic } from 'vscode-languageserver';
import type { DiagnosticData } from './analyze-pipeline.js';

/**
 * A quick fix for each of `diagnostics` (as the client sends them back) that carries its fix as edits: the rule's
 * own edits of the file, titled with the diagnostic's `fix:` line.
 */
export function quickFixes(uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const edits = (diagnostic.data as DiagnosticData | undefined)?.edits;
    if (diagnostic.source !== 'attractor' || edits === undefined || edits.length === 0) continue;
    const message = typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
    const fix = /\nfix: (.*)$/s.exec(message)?.[1];
    actions.push({
      title: fix ?? `Fix ${String(diagnostic.code)}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [uri]: [...edits] } },
    });
  }
  return actions;
}
