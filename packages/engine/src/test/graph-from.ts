/**
 * DOT text to a graph for tests (`@attractor/engine/test`).
 */
import { formatDiagnostic, type Graph, prepareGraph } from '@attractor/graph';

/**
 * Parses, builds, transforms and lints DOT source with `prepareGraph`, as an embedding app does.
 *
 * @param source The DOT text.
 * @param filename The file name diagnostics show. Default: `test.dot`.
 * @returns The graph (warnings are allowed).
 * @throws {Error} naming every error diagnostic, formatted with its source line, when the text does not parse or
 *   lint finds an error.
 */
export function graphFrom(source: string, filename = 'test.dot'): Graph {
  const prepared = prepareGraph(source, { filename });
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    throw new Error(errors.map((diagnostic) => formatDiagnostic(diagnostic, source)).join('\n'));
  }
  return prepared.graph;
}
