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
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { corpusDotDirectory } from '../../../tools/corpus.mjs';
import type { Diagnostic } from '../src/index.js';
import { prepareGraph } from '../src/index.js';

// CI clones the repository beside shared/; elsewhere ATTRACTOR_CORPUS_DIR, or the tests skip saying so.
const corpusDirectory = corpusDotDirectory('the corpus tests of @attractor/graph');
const recorded: Record<string, { nodes: number; edges: number; diagnostics: string[] }> = JSON.parse(
  readFileSync(fileURLToPath(new URL('./corpus-diagnostics.json', import.meta.url)), 'utf8'),
);
const files = (corpusDirectory === undefined ? [] : readdirSync(corpusDirectory))
  .filter((name) => name.endsWith('.dot'))
  .sort();

/** Corpus file name by upstream path (`allouis/attractor/pipelines/review-core/pipeline.dot`). */
const upstreamFiles = new Map<string, string>();
const sources =
  corpusDirectory === undefined ? '' : readFileSync(join(corpusDirectory, 'SOURCES.md'), 'utf8');
for (const match of sources.matchAll(/^\|\s*\d+\s*\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*`([^`]+)`\s*\|/gm)) {
  upstreamFiles.set(`/${match[2]}/${match[3]}`, match[1]!);
}
const upstreamPaths = new Map([...upstreamFiles].map(([path, file]) => [file, path]));

function readCorpusFile(path: string): string | undefined {
  const file = upstreamFiles.get(path);
  return file === undefined || corpusDirectory === undefined
    ? undefined
    : readFileSync(join(corpusDirectory, file), 'utf8');
}

/** `"<severity> <rule> <node id | from->to | graph>"`. */
function describeDiagnostic(diagnostic: Diagnostic): string {
  const target = diagnostic.edge
    ? `${diagnostic.edge.from}->${diagnostic.edge.to}`
    : (diagnostic.nodeId ?? '(graph)');
  return `${diagnostic.severity} ${diagnostic.rule} ${target}`;
}

describe.skipIf(corpusDirectory === undefined)('the shared DOT corpus', () => {
  it('has a recorded result for every file and no stale records', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(Object.keys(recorded).sort()).toEqual(files);
  });

  it.each(files)('%s parses, builds and lints as recorded', (file) => {
    const source = readFileSync(join(corpusDirectory!, file), 'utf8');
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
