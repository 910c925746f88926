/**
 * Source locations for diagnostics: where a node, edge or attribute was written, and where a piece of
 * an attribute value (a condition clause, a stylesheet rule) sits in the DOT file.
 */
import type { SourcePosition, SourceSpan } from '@attractor/dot';
import type { Graph, GraphAttribute, GraphEdge, GraphNode } from '../graph.js';
import type { DiagnosticEdit } from './diagnostic.js';

/** The position of `offset` in `source`, counted onwards from the known position `from` (`from.offset <= offset`). */
function positionAfter(source: string, from: SourcePosition, offset: number): SourcePosition {
  let line = from.line;
  let lineStart = from.offset - (from.column - 1);
  const end = Math.min(offset, source.length);
  for (let index = from.offset; index < end; index += 1) {
    if (source.charCodeAt(index) === 10) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

/**
 * `span` as a plain object (`start`, `end`, `filename` when set). The spans of the graph come from the parser,
 * which works out their positions when read (`@attractor/dot` `SourceSpan`); a diagnostic carries a plain copy, so
 * that it survives a spread, `structuredClone` or a `postMessage` as it is.
 */
export function plainSpan(span: SourceSpan): SourceSpan {
  const { start, end, filename } = span;
  return filename === undefined ? { start, end } : { start, end, filename };
}

/** Where a node should be pointed at: its id in its first declaration. */
export function nodeSpan(node: GraphNode | undefined): SourceSpan | undefined {
  return node?.idSpan ?? node?.span;
}

/** Where an edge should be pointed at: `from -> to` as written. */
export function edgeSpan(edge: GraphEdge): SourceSpan | undefined {
  return edge.span;
}

/** Where an attribute should be pointed at: its value, else its key, else the fallback. */
export function attributeSpan(
  attribute: GraphAttribute | undefined,
  fallback?: SourceSpan,
): SourceSpan | undefined {
  return attribute?.valueSpan ?? attribute?.keySpan ?? fallback;
}

/** `text` as a DOT key or value: bare when it is an identifier, else in double quotes with `"` and `\` escaped. */
export function dotText(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? text : quoted(text);
}

function quoted(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The edit that renames an attribute's key as written, or none when the key was not written in the source. */
export function keyEdit(attribute: GraphAttribute, key: string): { edits?: DiagnosticEdit[] } {
  return attribute.keySpan === undefined
    ? {}
    : { edits: [{ span: plainSpan(attribute.keySpan), text: dotText(key) }] };
}

/** The edit that replaces an attribute's value as written (quoted), or none when it was not written in the source. */
export function valueEdit(attribute: GraphAttribute, value: string): { edits?: DiagnosticEdit[] } {
  return attribute.valueSpan === undefined
    ? {}
    : { edits: [{ span: plainSpan(attribute.valueSpan), text: quoted(value) }] };
}

/**
 * A diagnostic's `span` and the edit that writes `text` there (`text` is DOT as it goes in, e.g. a word inside a
 * condition); neither without a span, only the span without a text.
 */
export function replacing(
  span: SourceSpan | undefined,
  text: string | undefined,
): { span?: SourceSpan; edits?: DiagnosticEdit[] } {
  if (span === undefined) return {};
  return text === undefined ? { span } : { span, edits: [{ span: plainSpan(span), text }] };
}

/**
 * Maps a range of an attribute's decoded value (e.g. a condition clause at `{ offset, length }`) to
 * the DOT source, undoing quotes, escapes and `"a" + "b"` concatenation. Falls back to the whole value
 * span when the graph has no source text.
 */
export function spanInAttribute(
  graph: Graph,
  attribute: GraphAttribute,
  range: { readonly offset: number; readonly length: number },
): SourceSpan | undefined {
  const valueSpan = attribute.valueSpan;
  if (valueSpan === undefined) return undefined;
  const source = graph.source;
  if (source === undefined) return valueSpan;
  const raw = source.slice(valueSpan.start.offset, valueSpan.end.offset);
  const rawOffsets = decodedToRawOffsets(raw);
  const startRaw = rawOffsets[Math.min(range.offset, rawOffsets.length - 1)] ?? 0;
  const endIndex = Math.min(range.offset + Math.max(range.length, 1), rawOffsets.length - 1);
  const endRaw = Math.max(rawOffsets[endIndex] ?? raw.length, startRaw + 1);
  // Count from the value's own start, not from the top of the file: rules call this for every clause of every
  // condition, and scanning the whole source each time made linting quadratic in the file size.
  const start = positionAfter(source, valueSpan.start, valueSpan.start.offset + startRaw);
  const end = positionAfter(source, start, valueSpan.start.offset + endRaw);
  return valueSpan.filename === undefined ? { start, end } : { start, end, filename: valueSpan.filename };
}

/**
 * For each decoded character index (plus one past the end), the offset of its first raw character.
 * Handles bare values, quoted strings with backslash escapes and `+`-joined quoted strings.
 */
function decodedToRawOffsets(raw: string): number[] {
  if (!raw.startsWith('"')) return Array.from({ length: raw.length + 1 }, (_, index) => index);
  const offsets: number[] = [];
  let index = 0;
  let inString = false;
  while (index < raw.length) {
    const char = raw[index];
    if (!inString) {
      if (char === '"') inString = true;
      index += 1;
      continue;
    }
    if (char === '"') {
      inString = false;
      index += 1;
      continue;
    }
    offsets.push(index);
    index += char === '\\' && index + 1 < raw.length ? 2 : 1;
  }
  const closing = raw.lastIndexOf('"');
  offsets.push(closing > 0 ? closing : raw.length);
  return offsets;
}
