import { readFileSync } from 'node:fs';
import type { Graph } from '@attractor/graph';
import { prepareGraph } from '@attractor/graph';

/** The text of `test/fixtures/<name>`. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Parses, transforms and validates DOT; throws with the diagnostics when it has errors. */
export function graphFromDot(source: string, filename = 'inline.dot'): Graph {
  const { graph, diagnostics } = prepareGraph(source, { filename });
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (graph === undefined || errors.length > 0) {
    throw new Error(
      `${filename} is invalid: ${errors.map((error) => `${error.rule}: ${error.message}`).join('; ')}`,
    );
  }
  return graph;
}
