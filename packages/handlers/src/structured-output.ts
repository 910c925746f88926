/**
 * Structured stage output (README "Typed data"): the node's `output_schema` resolved to a JSON Schema, a stage's
 * reply checked against it, and the valid value mapped into context updates by `out_map` (or under the node id).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { createJsonSchemaValidator, type JsonValue } from '@attractor/engine';
import { type Graph, type GraphNode, parseOutMap, parseOutputSchemaDeclaration } from '@attractor/graph';

/** A JSON Schema object. */
export type OutputSchema = Readonly<Record<string, unknown>>;

/** What {@link readOutputSchema} returns. */
export type OutputSchemaResult =
  | { readonly ok: true; readonly schema: OutputSchema | undefined }
  | { readonly ok: false; readonly reason: string };

/**
 * The JSON Schema of the node's `output_schema`: inline, the compact form, or a `.json` file relative to the DOT file
 * (`graph.filename`; else `workdir`). `schema` is undefined when the node has none. A file that cannot be read or
 * is not a JSON object, or a malformed value, is `{ ok: false, reason }` (a configuration error, not retried).
 */
export async function readOutputSchema(options: {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly workdir: string;
}): Promise<OutputSchemaResult> {
  const text = options.node.attributes.output_schema?.value;
  if (text === undefined || text.trim() === '') return { ok: true, schema: undefined };
  const parsed = parseOutputSchemaDeclaration(text);
  if (!parsed.ok)
    return { ok: false, reason: `output_schema of "${options.node.id}": ${parsed.error.message}` };
  const declaration = parsed.declaration;
  if (declaration.kind === 'schema') return { ok: true, schema: declaration.schema };
  const base =
    options.graph.filename === undefined ? options.workdir : dirname(resolve(options.graph.filename));
  const path = isAbsolute(declaration.path) ? declaration.path : resolve(base, declaration.path);
  try {
    const schema: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return {
        ok: false,
        reason: `output_schema of "${options.node.id}": ${path} is not a JSON Schema object`,
      };
    }
    return { ok: true, schema: schema as OutputSchema };
  } catch (error) {
    return {
      ok: false,
      reason: `output_schema of "${options.node.id}": cannot read ${path} (${(error as Error).message}); the path is relative to the DOT file`,
    };
  }
}

/** What {@link checkStructuredOutput} returns. */
export type StructuredOutputResult =
  | {
      readonly ok: true;
      readonly value: JsonValue;
      readonly contextUpdates: Record<string, JsonValue>;
      /**
       * One sentence per `out_map` entry whose field the valid value lacks (its key is not set), e.g. `out_map of
       * "plan": the output has no field "sumary", so "summary" is not set (the output has "summary")`; the handlers
       * report them as `stage.log` warnings and in the outcome's notes. Empty when every entry found its field.
       */
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses `text` as JSON (a reply wrapped in one Markdown code fence is unwrapped) and checks it against `schema`.
 * A valid value becomes context updates: each `out_map` entry's field (a dotted path into the value) under its key,
 * or, without `out_map`, each top-level field of an object under `<node id>.<field>` (anything else under
 * `<node id>.output`). An `out_map` field the value lacks sets nothing and is listed in `warnings` (an optional field
 * left out, or a misspelled one; lint `out_map_field` finds the latter for a schema written in the DOT file). An invalid one is `{ ok: false, reason }` naming every problem; nothing of it is committed.
 */
export function checkStructuredOutput(options: {
  readonly node: GraphNode;
  readonly text: string;
  readonly schema: OutputSchema;
  /** What produced the text, for the reason: `the reply`, `stdout`. */
  readonly source: string;
}): StructuredOutputResult {
  const { node } = options;
  let value: JsonValue;
  try {
    value = JSON.parse(unfenced(options.text)) as JsonValue;
  } catch (error) {
    return {
      ok: false,
      reason: `the structured output of "${node.id}" (${options.source}) is not JSON: ${(error as Error).message}`,
    };
  }
  const problems = createJsonSchemaValidator(options.schema)(value);
  if (problems.length > 0) {
    return {
      ok: false,
      reason: `the structured output of "${node.id}" (${options.source}) does not match its output_schema: ${problems
        .map((problem) => `${problem.field === '' ? 'the value' : `"${problem.field}"`} ${problem.message}`)
        .join('; ')}`,
    };
  }
  return { ok: true, value, ...mapOutputFields({ node, value }) };
}

/**
 * A stage's output value as context updates (README "Typed data"): each `out_map` entry's field (a dotted path into
 * the value, or a top-level key written with dots, as a sub-pipeline's `outputs` keys may be) under its key; without
 * `out_map`, each top-level field of an object under `<node id>.<field>` (anything else under `<node id>.output`).
 * An `out_map` field the value lacks sets nothing and is listed in `warnings`. Structured stage output and
 * sub-pipeline nodes with `outputs` map through this one function.
 */
export function mapOutputFields(options: { readonly node: GraphNode; readonly value: JsonValue }): {
  readonly contextUpdates: Record<string, JsonValue>;
  readonly warnings: readonly string[];
} {
  const { node, value } = options;
  const contextUpdates: Record<string, JsonValue> = {};
  const warnings: string[] = [];
  const outMap = node.attributes.out_map?.value;
  const parsedMap = outMap === undefined ? undefined : parseOutMap(outMap);
  if (parsedMap?.ok === true && parsedMap.entries.length > 0) {
    for (const entry of parsedMap.entries) {
      const field = fieldAt(value, entry.field);
      if (field !== undefined) contextUpdates[entry.key] = field;
      else warnings.push(missingFieldWarning({ nodeId: node.id, value, field: entry.field, key: entry.key }));
    }
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [field, fieldValue] of Object.entries(value))
      contextUpdates[`${node.id}.${field}`] = fieldValue;
  } else {
    contextUpdates[`${node.id}.output`] = value;
  }
  return { contextUpdates, warnings };
}

function missingFieldWarning(options: {
  readonly nodeId: string;
  readonly value: JsonValue;
  readonly field: string;
  readonly key: string;
}): string {
  const { value } = options;
  const fields =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const has = fields.length === 0 ? 'no fields' : fields.map((field) => `"${field}"`).join(', ');
  return `out_map of "${options.nodeId}": the output has no field "${options.field}", so "${options.key}" is not set (the output has ${has})`;
}

/** The text inside one Markdown code fence around the whole reply (```json ... ```), else the text. */
function unfenced(text: string): string {
  const match = /^\s*```[A-Za-z]*\n([\s\S]*?)\n```\s*$/.exec(text);
  return match === null ? text : (match[1] ?? '');
}

function fieldAt(value: JsonValue, path: string): JsonValue | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, path)) {
    return (value as Record<string, JsonValue>)[path];
  }
  let current: JsonValue | undefined = value;
  for (const name of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, JsonValue>)[name];
  }
  return current;
}

/** `{ notes }` of an outcome with `warnings` appended to its `notes`, one per line; `{}` when both are empty. */
export function notesWith(notes: string | undefined, warnings: readonly string[]): { notes?: string } {
  const lines = [...(notes === undefined || notes === '' ? [] : [notes]), ...warnings];
  return lines.length === 0 ? {} : { notes: lines.join('\n') };
}
