/**
 * Every pipeline of the shared corpus (real files written for other Attractor runners) is parsed,
 * built and linted, and produces exactly the diagnostics recorded in corpus-diagnostics.json.
 * Each recorded diagnostic was checked by hand against the file (see the package README's corpus
 * notes); a change in what a rule reports shows up here as a diff to review.
 *
 * Each file is prepared under its upstream path (repository and path from the corpus's SOURCES.md), with a
 * reader that finds a referenced file (`graph_ref="../review-core/pipeline.dot"`) when it is in the corpus too,
 * as the conformance suite's CLI run sees them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../src/index.js';
import { prepareGraph } from '../src/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// CI clones the repository beside shared/.
const corpusDirectory = resolve(repoRoot, '..', 'shared', 'corpus', 'dot');
const recorded: Record<string, { nodes: number; edges: number; diagnostics: string[] }> = JSON.parse(
  readFileSync(fileURLToPath(new URL('./corpus-diagnostics.json', import.meta.url)), 'utf8'),
);
const files = readdirSync(corpusDirectory)
  .filter((name) => name.endsWith('.dot'))
  .sort();

/** Corpus file name by upstream path (`allouis/attractor/pipelines/review-core/pipeline.dot`). */
const upstreamFiles = new Map<string, string>();
for (const match of readFileSync(join(corpusDirectory, 'SOURCES.md'), 'utf8').matchAll(
  /^\|\s*\d+\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*`([^`]+)`\s*\|/gm,
)) {
  upstreamFiles.set(`/${match[2]}/${match[3]}`, match[1]!);
}
const upstreamPaths = new Map([...upstreamFiles].map(([path, file]) => [file, path]));

function readCorpusFile(path: string): string | undefined {
  const file = upstreamFiles.get(path);
  return file === undefined ? undefined : readFileSync(join(corpusDirectory, file), 'utf8');
}

/** `"<severity> <rule> <node id | from->to | graph>"`. */
function describeDiagnostic(diagnostic: Diagnostic): string {
  const target = diagnostic.edge
    ? `${diagnostic.edge.from}->${diagnostic.edge.to}`
    : (diagnostic.nodeId ?? '(graph)');
  return `${diagnostic.severity} ${diagnostic.rule} ${target}`;
}

describe('the shared DOT corpus', () => {
  it('has a recorded result for every file and no stale records', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(recorded).sort()).toEqual(files);
  });

  it.each(files)('%s parses, builds and lints as recorded', (file) => {
    const source = readFileSync(join(corpusDirectory, file), 'utf8');
    const filename = upstreamPaths.get(file)!;
    expect(filename, `${file} has no row in SOURCES.md`).toBeDefined();
    const { graph, diagnostics } = prepareGraph(source, { filename, readGraphFile: readCorpusFile });
    expect(graph).toBeDefined();
    expect(
      diagnostics.every(
        (diagnostic) => diagnostic.span?.filename === filename || diagnostic.span === undefined,
      ),
    ).toBe(true);
    expect({
      nodes: graph!.nodes.size,
      edges: graph!.edges.length,
      diagnostics: diagnostics.map(describeDiagnostic),
    }).toEqual(recorded[file]);
  });
});
