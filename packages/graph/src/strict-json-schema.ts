/**
 * JSON Schemas and OpenAI's strict structured outputs (`strict: true` in a JSON Schema response format: the default
 * of the AI SDK's OpenAI provider, and what Codex's `--output-schema` always sends). Strict mode takes only schemas
 * whose every object sets `additionalProperties: false` and lists all its properties in `required`; the compact
 * `output_schema` form (`verdict: string, issues?: string[]`) does not (extra fields allowed, optional fields).
 */
import type { JsonSchemaObject } from './input-declaration.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/** Keywords whose value is an object of named subschemas. */
const SUBSCHEMA_MAP_KEYWORDS = ['$defs', 'definitions'] as const;

/** The subschemas of `schema` with their place (`['properties', 'x']`, `['items']`, `['anyOf', '0']`, ...). */
function childrenOf(schema: Record<string, unknown>): [readonly string[], unknown][] {
  const children: [readonly string[], unknown][] = [];
  if (isObject(schema.properties)) {
    for (const [key, value] of Object.entries(schema.properties)) children.push([['properties', key], value]);
  }
  if (schema.items !== undefined) children.push([['items'], schema.items]);
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    for (const [index, value] of list.entries()) children.push([[keyword, String(index)], value]);
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const defs = schema[keyword];
    if (isObject(defs))
      for (const [key, value] of Object.entries(defs)) children.push([[keyword, key], value]);
  }
  return children;
}

/**
 * The first reason OpenAI's strict mode would refuse `schema`, in OpenAI's words (`In context=('properties', 'x'),
 * 'additionalProperties' is required to be supplied and to be false.`), or `undefined` when every object in it (under
 * `properties`, `items`, `anyOf`/`oneOf`/`allOf`, `$defs`/`definitions`) sets `additionalProperties: false` and lists
 * every property in `required`. Other strict-mode limits (unsupported keywords) are not checked.
 * @param schema a JSON Schema (anything but an object has no problem to report)
 * @returns the problem, or `undefined`
 */
export function strictSchemaProblem(schema: unknown): string | undefined {
  return problemAt(schema, []);
}

function problemAt(schema: unknown, context: readonly string[]): string | undefined {
  if (!isObject(schema)) return undefined;
  const where = `In context=(${context.map((part) => `'${part}'`).join(', ')})`;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (schema.type === 'object' || properties !== undefined) {
    if (schema.additionalProperties !== false) {
      return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    }
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = Object.keys(properties ?? {}).find((key) => !required.includes(key));
    if (missing !== undefined) {
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
  }
  for (const [path, child] of childrenOf(schema)) {
    const problem = problemAt(child, [...context, ...path]);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * A variant of `schema` that OpenAI's strict mode takes and that asks for the same answers: every object that names
 * its properties is closed (`additionalProperties: false`) with all of them required, and a property that was
 * optional becomes `anyOf: [<its schema>, { type: 'null' }]`, so the model answers `null` for "left out"
 * ({@link withoutOptionalNulls} removes those nulls again before the answer is checked against `schema`).
 * `schema` itself when it already suits strict mode.
 * @param schema the stage's `output_schema`
 * @returns the variant, or `undefined` when strict mode cannot say the same: an object that names no properties but
 *   allows any (a free-form `object`), which strict mode has no way to ask for
 */
export function strictSchemaVariant(schema: JsonSchemaObject): JsonSchemaObject | undefined {
  if (strictSchemaProblem(schema) === undefined) return schema;
  const variant = variantOf(schema);
  return variant === undefined || !isObject(variant) ? undefined : variant;
}

function variantOf(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const isObjectSchema = schema.type === 'object' || properties !== undefined;
  if (isObjectSchema && properties === undefined && schema.additionalProperties !== false) return undefined;
  const result: Record<string, unknown> = { ...schema };
  if (properties !== undefined) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const strictProperties: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(properties)) {
      const child = variantOf(value);
      if (child === undefined) return undefined;
      strictProperties[key] = required.has(key) ? child : { anyOf: [child, { type: 'null' }] };
    }
    result.properties = strictProperties;
    result.required = Object.keys(properties);
  }
  if (isObjectSchema) result.additionalProperties = false;
  if (schema.items !== undefined) {
    const items = variantOf(schema.items);
    if (items === undefined) return undefined;
    result.items = items;
  }
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    const mapped = list.map(variantOf);
    if (mapped.includes(undefined)) return undefined;
    result[keyword] = mapped;
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    const defs = schema[keyword];
    if (!isObject(defs)) continue;
    const mapped: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(defs)) {
      const child = variantOf(value);
      if (child === undefined) return undefined;
      mapped[key] = child;
    }
    result[keyword] = mapped;
  }
  return result;
}

/**
 * An answer to {@link strictSchemaVariant}'s variant of `schema`, as an answer to `schema`: each `null` the model
 * gave for a property that `schema` does not require (under `properties` and `items`) is left out.
 * @param value the parsed answer
 * @param schema the original schema
 * @returns a copy without those nulls (`value` itself when nothing changes)
 */
export function withoutOptionalNulls(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    return schema.items === undefined ? value : value.map((item) => withoutOptionalNulls(item, schema.items));
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const result: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null && !required.has(key) && key in schema.properties) continue;
    result[key] = key in schema.properties ? withoutOptionalNulls(field, schema.properties[key]) : field;
  }
  return result;
}
