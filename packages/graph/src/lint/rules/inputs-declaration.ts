import {
  parseInputDeclaration,
  parseOutputsDeclaration,
  parseStateDeclaration,
} from '../../input-declaration.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `inputs_declaration` (ERROR, README "Typed data"): the graph's `inputs` is neither a JSON Schema file (`*.json`)
 * nor the compact form `name: type, name?: type`, or its `outputs` is not a list of context keys. Reported at the
 * offending entry. Another runner's form (Kilroy's `inputs="topic"`, a list of names without types, and
 * `outputs="combined-output.md"`, file names) is a WARNING: the run ignores it.
 */
export const inputsDeclarationRule: LintRule = {
  name: 'inputs_declaration',
  apply(graph) {
    const checks = [
      {
        attribute: graph.attributes.inputs,
        error: (text: string) => {
          const parsed = parseInputDeclaration(text);
          return parsed.ok ? undefined : parsed.error;
        },
        fix: 'Write inputs="repo: string, issue: integer, labels?: string[]" (types: string, integer, number, boolean, object, any; [] for a list; ? for an optional input), or the path of a JSON Schema file ending in .json.',
      },
      {
        attribute: graph.attributes.outputs,
        error: (text: string) => {
          const parsed = parseOutputsDeclaration(text);
          return parsed.ok ? undefined : parsed.error;
        },
        fix: 'Write outputs="summary, review.verdict": the context keys of the result.',
      },
      {
        attribute: graph.attributes.state,
        error: (text: string) => {
          const parsed = parseStateDeclaration(text);
          return parsed.ok ? undefined : parsed.error;
        },
        fix: 'Write state="findings: append, summary: replace, scores: merge_object".',
      },
    ];
    const diagnostics: Diagnostic[] = [];
    for (const { attribute, error: errorOf, fix } of checks) {
      if (attribute === undefined) continue;
      const error = errorOf(attribute.value);
      if (error === undefined) continue;
      const span = spanInAttribute(graph, attribute, error);
      const foreign = isOtherRunnersForm(attribute.key, attribute.value);
      diagnostics.push({
        rule: 'inputs_declaration',
        severity: foreign ? 'warning' : 'error',
        message: `Graph attribute ${attribute.key} of "${graph.id}": ${error.message}${foreign ? ` (read as another runner's documentation: ${attribute.key === 'inputs' ? 'no inputs are checked or expanded' : 'the run writes no output.json'})` : ''}.`,
        fix,
        ...(span === undefined ? {} : { span }),
      });
    }
    return diagnostics;
  },
};

/** Kilroy's forms: `inputs` names without a single `:`, `outputs` naming files (an entry with `-`, `/` or a suffix). */
function isOtherRunnersForm(key: string, text: string): boolean {
  if (key === 'inputs') return !text.includes(':');
  return text.split(',').some((entry) => /[-/]|\.(md|txt|json|ya?ml|log)$/.test(entry.trim()));
}
