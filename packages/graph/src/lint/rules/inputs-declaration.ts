import {
  parseInputDeclaration,
  parseOutputsDeclaration,
  parseStateDeclaration,
} from '../../input-declaration.js';
import type { Diagnostic, LintRule } from '../diagnostic.js';
import { spanInAttribute } from '../source-location.js';

/**
 * `inputs_declaration` (ERROR, README "Typed data"): the graph's `inputs` is neither a JSON Schema file (`*.json`)
 * nor the compact form `name: type, name?: type`, or its `outputs` is not a list of context keys. Reported at
 * every offending entry, all in one pass. Another runner's form (Kilroy's `inputs="topic"`, a list of names without types, and
 * `outputs="combined-output.md"`, file names) is a WARNING: the run ignores it.
 */
export const inputsDeclarationRule: LintRule = {
  name: 'inputs_declaration',
  apply(graph) {
    const checks = [
      {
        attribute: graph.attributes.inputs,
        errors: (text: string) => {
          const parsed = parseInputDeclaration(text);
          return parsed.ok ? [] : parsed.errors;
        },
        fix: 'Write inputs="repo: string, issue: integer, labels?: string[]" (types: string, integer, number, boolean, object, any; [] for a list; ? for an optional input), or the path of a JSON Schema file ending in .json.',
      },
      {
        attribute: graph.attributes.outputs,
        errors: (text: string) => {
          const parsed = parseOutputsDeclaration(text);
          return parsed.ok ? [] : parsed.errors;
        },
        fix: 'Write outputs="summary, review.verdict": the context keys of the result.',
      },
      {
        attribute: graph.attributes.state,
        errors: (text: string) => {
          const parsed = parseStateDeclaration(text);
          return parsed.ok ? [] : parsed.errors;
        },
        fix: 'Write state="findings: append, summary: replace, scores: merge_object".',
      },
    ];
    const diagnostics: Diagnostic[] = [];
    for (const { attribute, errors: errorsOf, fix } of checks) {
      if (attribute === undefined) continue;
      const errors = errorsOf(attribute.value);
      if (errors.length === 0) continue;
      const foreign = isOtherRunnersForm(attribute.key, attribute.value);
      // Every mistake at once; another runner's form is one finding (the whole value is read as documentation).
      for (const error of foreign ? errors.slice(0, 1) : errors) {
        const span = spanInAttribute(graph, attribute, error);
        diagnostics.push({
          rule: 'inputs_declaration',
          severity: foreign ? 'warning' : 'error',
          message: `Graph attribute ${attribute.key} of "${graph.id}": ${error.message}${foreign ? ` (read as another runner's documentation: ${attribute.key === 'inputs' ? 'no inputs are checked or expanded' : 'the run writes no output.json'})` : ''}.`,
          fix,
          ...(span === undefined ? {} : { span }),
        });
      }
    }
    return diagnostics;
  },
};

/** Kilroy's forms: `inputs` names without a single `:`, `outputs` naming files (an entry with `-`, `/` or a suffix). */
function isOtherRunnersForm(key: string, text: string): boolean {
  if (key === 'inputs') return !text.includes(':');
  return text.split(',').some((entry) => /[-/]|\.(md|txt|json|ya?ml|log)$/.test(entry.trim()));
}
