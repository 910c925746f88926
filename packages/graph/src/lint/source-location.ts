/**
 * Source locations for diagnostics: where a node, edge or attribute was written, and where a piece of
 * an attribute value (a condition clause, a stylesheet rule) sits in the DOT file.
 */
import type { SourcePosition, SourceSpan } from '@attractor/dot';
import type { Graph, GraphAttribute, GraphEdge, GraphNode } from '../graph.js';
import type { DiagnosticEdit } from './diagnostic.js';

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
  const map = valueMapOf(source, valueSpan);
  const { rawOffsets } = map;
  const startRaw = rawOffsets[Math.min(range.offset, rawOffsets.length - 1)] ?? 0;
  const endIndex = Math.min(range.offset + Math.max(range.length, 1), rawOffsets.length - 1);
  const endRaw = Math.max(rawOffsets[endIndex] ?? map.length, startRaw + 1);
  const start = positionInValue(map, valueSpan.start, startRaw);
  const end = positionInValue(map, valueSpan.start, endRaw);
  return valueSpan.filename === undefined ? { start, end } : { start, end, filename: valueSpan.filename };
}

/** What {@link spanInAttribute} needs of an attribute value's source text, worked out once per value. */
interface ValueMap {
  /** The raw text's length. */
  readonly length: number;
  /** For each decoded character index (plus one past the end), the offset of its first raw character. */
  readonly rawOffsets: readonly number[];
  /** The raw offsets of the value's newlines, ascending. */
  readonly newlines: readonly number[];
}

/**
 * The maps of the values asked about, by value span: rules ask for every clause of a condition and every rule of a
 * stylesheet, and decoding the whole value (and counting its lines) each time made linting quadratic in the value's
 * length (a 1,000-rule stylesheet took 5 s; issue 34 §14).
 */
const valueMaps = new WeakMap<SourceSpan, ValueMap>();

function valueMapOf(source: string, valueSpan: SourceSpan): ValueMap {
  let map = valueMaps.get(valueSpan);
  if (map === undefined) {
    const raw = source.slice(valueSpan.start.offset, valueSpan.end.offset);
    const newlines: number[] = [];
    for (let index = raw.indexOf('\n'); index !== -1; index = raw.indexOf('\n', index + 1))
      newlines.push(index);
    map = { length: raw.length, rawOffsets: decodedToRawOffsets(raw), newlines };
    valueMaps.set(valueSpan, map);
  }
  return map;
}

/** The position of raw offset `rawOffset` of a value that starts at `start`: lines counted by binary search. */
function positionInValue(map: ValueMap, start: SourcePosition, rawOffset: number): SourcePosition {
  const { newlines } = map;
  // How many of the value's newlines come before rawOffset.
  let low = 0;
  let high = newlines.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (newlines[middle]! < rawOffset) low = middle + 1;
    else high = middle;
  }
  const offset = start.offset + rawOffset;
  if (low === 0) return { offset, line: start.line, column: start.column + rawOffset };
  return { offset, line: start.line + low, column: rawOffset - newlines[low - 1]! };
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
