import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DocumentLink, Location, Range, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { ResponseError } from 'vscode-languageserver';
import type { PipelineDocument } from './pipeline-document.js';
import type { FileReference, TextRange } from './pipeline-index.js';
import { type SymbolAt, symbolAt } from './symbol-at.js';

/** Words a node id cannot be (the parser rejects them as ids). */
const KEYWORDS = /^(strict|digraph|graph|subgraph|node|edge)$/i;
const EMPTY_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/**
 * Where the thing at `offset` is defined: a node id's first node statement (from an edge, a `retry_target`, a
 * `#id` selector, ...); a class's stylesheet rule (from a `class` value; from a selector, the first node that has it);
 * the file a `graph_ref`, `stack.child_dotfile` or prompt file names, when it exists.
 */
export function definitionAt(pipeline: PipelineDocument, offset: number, uri: string): Location[] {
  const symbol = symbolAt(pipeline.index, offset);
  if (symbol === undefined) return [];
  const location = (range: TextRange): Location => ({ uri, range: rangeOf(pipeline, range) });
  switch (symbol.kind) {
    case 'node':
      return [location(pipeline.index.nodes.get(symbol.occurrence.id)!.definition)];
    case 'class': {
      const { name, kind } = symbol.occurrence;
      const classes = pipeline.index.classes.filter((item) => item.name === name);
      const wanted =
        kind === 'selector'
          ? classes.filter((item) => item.kind !== 'selector')
          : classes.filter((item) => item.kind === 'selector');
      return wanted.slice(0, 1).map(location);
    }
    case 'file': {
      const target = fileOf(pipeline, symbol.reference);
      return target === undefined ? [] : [{ uri: pathToFileURL(target).href, range: EMPTY_RANGE }];
    }
    default:
      return [];
  }
}

/** Every place that names the node or class at `offset` (its definition too when `includeDeclaration`). */
export function referencesAt(
  pipeline: PipelineDocument,
  offset: number,
  uri: string,
  includeDeclaration: boolean,
): Location[] {
  const symbol = symbolAt(pipeline.index, offset);
  const ranges = occurrencesOf(pipeline, symbol);
  if (ranges === undefined) return [];
  const definition =
    symbol?.kind === 'node' ? pipeline.index.nodes.get(symbol.occurrence.id)!.definition : undefined;
  return ranges
    .filter((range) => includeDeclaration || range.start !== definition?.start)
    .map((range) => ({ uri, range: rangeOf(pipeline, range) }));
}

/** The node id at `offset` and its range, for a rename; a `ResponseError` when it is not a node id. */
export function prepareRenameAt(
  pipeline: PipelineDocument,
  offset: number,
): { range: Range; placeholder: string } {
  const symbol = symbolAt(pipeline.index, offset);
  if (symbol?.kind !== 'node') throw new ResponseError(-32803, 'Only a node id can be renamed here.');
  return { range: rangeOf(pipeline, symbol.occurrence), placeholder: symbol.occurrence.id };
}

/**
 * Renames the node at `offset` everywhere in the file: its statements, its edges, the `retry_target`,
 * `fallback_retry_target` and `human.default_choice` values and stylesheet `#id` selectors that name it.
 *
 * @throws {ResponseError} when the position is not on a node id, when `newName` is not an identifier (node ids are
 *   bare identifiers, spec §2.2) or is a keyword, or when another node already has that id.
 */
export function renameAt(
  pipeline: PipelineDocument,
  offset: number,
  newName: string,
  uri: string,
): WorkspaceEdit {
  const symbol = symbolAt(pipeline.index, offset);
  if (symbol?.kind !== 'node') throw new ResponseError(-32803, 'Only a node id can be renamed here.');
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(newName) || KEYWORDS.test(newName)) {
    throw new ResponseError(
      -32602,
      `"${newName}" cannot be a node id: write a bare identifier (letters, digits, _; not a DOT keyword), and put any other text in label.`,
    );
  }
  if (newName !== symbol.occurrence.id && pipeline.index.nodes.has(newName)) {
    throw new ResponseError(
      -32602,
      `There is already a node "${newName}": choose another id, or merge the two nodes by hand.`,
    );
  }
  const edits: TextEdit[] = occurrencesOf(pipeline, symbol)!.map((range) => ({
    range: rangeOf(pipeline, range),
    newText: newName,
  }));
  return { changes: { [uri]: edits } };
}

/** Links for the files a pipeline names (sub-pipelines, child pipelines, prompt files) that exist. */
export function documentLinks(pipeline: PipelineDocument): DocumentLink[] {
  const links: DocumentLink[] = [];
  for (const reference of pipeline.index.files) {
    const target = fileOf(pipeline, reference);
    if (target !== undefined)
      links.push({ range: rangeOf(pipeline, reference), target: pathToFileURL(target).href });
  }
  return links;
}

function occurrencesOf(pipeline: PipelineDocument, symbol: SymbolAt | undefined): TextRange[] | undefined {
  if (symbol?.kind === 'node') {
    return pipeline.index.occurrences.filter((occurrence) => occurrence.id === symbol.occurrence.id);
  }
  if (symbol?.kind === 'class') {
    return pipeline.index.classes.filter((item) => item.name === symbol.occurrence.name);
  }
  return undefined;
}

/** The absolute path a reference names, relative to the pipeline's directory, when the file exists. */
function fileOf(pipeline: PipelineDocument, reference: FileReference): string | undefined {
  if (pipeline.filename === undefined) return undefined;
  const path = resolve(dirname(pipeline.filename), reference.path);
  return existsSync(path) ? path : undefined;
}

function rangeOf(pipeline: PipelineDocument, range: TextRange): Range {
  return { start: pipeline.document.positionAt(range.start), end: pipeline.document.positionAt(range.end) };
}
