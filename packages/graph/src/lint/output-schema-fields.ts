/**
 * What lint knows of a stage's structured output (README "Typed data"): the JSON Schema of an inline `output_schema`
 * and whether a dotted field is one of its properties. The rules `out_map_field` and `output_unwritten` read it.
 */
import type { GraphNode } from '../graph.js';
import { parseOutputSchemaDeclaration } from '../output-schema-declaration.js';

/** A JSON Schema object. */
type Schema = Readonly<Record<string, unknown>>;

/**
 * The JSON Schema of the node's `output_schema` when it is written in the DOT file (inline JSON or the compact form),
 * else `undefined`: none, a `.json` file (read only when the stage runs) or a malformed value (rule `output_schema`).
 */
export function inlineOutputSchema(node: GraphNode): Schema | undefined {
  const text = node.attributes.output_schema?.value;
  if (text === undefined || text.trim() === '') return undefined;
  const parsed = parseOutputSchemaDeclaration(text);
  return parsed.ok && parsed.declaration.kind === 'schema' ? parsed.declaration.schema : undefined;
}

/** What {@link findSchemaField} returns. */
export type SchemaFieldResult =
  | { readonly found: true }
  /** `field` is the dotted path up to the first missing name; `known` the dotted properties at its level. */
  | { readonly found: false; readonly field: string; readonly known: readonly string[] };

/**
 * Whether the dotted `field` (`summary`, `meta.title`) can be in a value of `schema`: each name must be a property of
 * the object schema at its level. A level whose properties are not plainly listed (no `properties`, or
 * `allOf`/`anyOf`/`oneOf`/`$ref`/`patternProperties`) may hold anything, and counts as found.
 */
export function findSchemaField(schema: Schema, field: string): SchemaFieldResult {
  let level: unknown = schema;
  const names = field.split('.');
  for (const [index, name] of names.entries()) {
    const properties = listedProperties(level);
    if (properties === undefined) return { found: true };
    const prefix = names
      .slice(0, index)
      .map((part) => `${part}.`)
      .join('');
    if (!Object.hasOwn(properties, name)) {
      return {
        found: false,
        field: `${prefix}${name}`,
        known: Object.keys(properties).map((property) => `${prefix}${property}`),
      };
    }
    level = properties[name];
  }
  return { found: true };
}

function listedProperties(level: unknown): Readonly<Record<string, unknown>> | undefined {
  if (level === null || typeof level !== 'object' || Array.isArray(level)) return undefined;
  const schema = level as Schema;
  if (['allOf', 'anyOf', 'oneOf', '$ref', 'patternProperties'].some((key) => Object.hasOwn(schema, key))) {
    return undefined;
  }
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return undefined;
  return properties as Readonly<Record<string, unknown>>;
}
