/**
 * The inputs a JSON Schema file declares, as lint reads them (README "Typed data"): a graph's `inputs="schemas/in.json"`
 * names such a file. Read by `input_variable` (the graph's own file, through `prepareGraph`) and `subgraph_input` (a
 * child pipeline's file).
 */
import { INPUT_TYPE_NAMES, type InputField } from '../input-declaration.js';
import type { GraphFileReader } from './graph-refs.js';
import { readJsonSchemaFile } from './read-json-schema-file.js';

/** What an input schema file declares: its top-level `properties`, `required` and `additionalProperties`. */
export interface InputSchemaFile {
  /** One field per property (and per required name without a property, typed `any`). */
  readonly fields: readonly InputField[];
  /** Whether other names are refused (`additionalProperties: false`). */
  readonly closed: boolean;
}

/**
 * Reads the input schema file at `path` through `read`: what it declares, or why it cannot be used, as a phrase to
 * put after the file's name (`does not exist`, `cannot be read (...)`, `is not JSON (...)`,
 * `is not a JSON Schema object`). Types are taken as far as lint checks a literal (`any` when not one type).
 */
export function readInputSchemaFile(path: string, read: GraphFileReader): InputSchemaFile | string {
  const schema = readJsonSchemaFile(path, read);
  if (typeof schema === 'string') return schema;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const fields: InputField[] = Object.entries(properties).map(([name, property]) => ({
    name,
    type: compactTypeOf(property),
    optional: !required.includes(name),
  }));
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) fields.push({ name, type: 'any', optional: false });
  }
  return { fields, closed: schema.additionalProperties === false };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The compact type a property schema stands for, as far as lint checks a literal: `any` when it is not one type. */
function compactTypeOf(property: unknown): string {
  const type = isObject(property) ? property.type : undefined;
  if (type === 'array') return 'any[]';
  return typeof type === 'string' && (INPUT_TYPE_NAMES as readonly string[]).includes(type) ? type : 'any';
}
