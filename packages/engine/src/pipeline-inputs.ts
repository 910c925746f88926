/**
 * The run's inputs (README "Typed data"): read the graph's input schema (the compact `inputs` form or a JSON Schema
 * file), check the given values against it before any stage runs, and put them in the context as `input.<name>`.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { didYouMean, type Graph, type JsonSchemaObject } from '@attractor/graph';
import { InputsInvalidError } from './errors/inputs-invalid-error.js';
import { createJsonSchemaValidator } from './json-schema-validator.js';
import type { JsonValue } from './json-value.js';

/** The context key prefix of the run's inputs: input `repo` is the context key `input.repo`. */
export const INPUT_CONTEXT_PREFIX = 'input.';

/** Options of {@link readInputSchema}. */
export interface ReadInputSchemaOptions {
  readonly graph: Graph;
  /** Where a relative schema file path starts: the DOT file's directory. Default: the process's working directory. */
  readonly baseDirectory?: string;
}

/**
 * The JSON Schema of the graph's inputs: the one the compact form stands for, the parsed schema file, or undefined
 * when the graph declares no inputs.
 *
 * @throws {InputsInvalidError} when the schema file cannot be read, is not JSON, or is not a JSON object.
 */
export async function readInputSchema(
  options: ReadInputSchemaOptions,
): Promise<JsonSchemaObject | undefined> {
  const declaration = options.graph.settings.inputs;
  if (declaration === undefined) return undefined;
  if (declaration.kind === 'fields') return declaration.schema;
  const path = isAbsolute(declaration.path)
    ? declaration.path
    : resolve(options.baseDirectory ?? '.', declaration.path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputsInvalidError({
      message: `Cannot read the input schema ${path} (graph attribute inputs="${declaration.path}", relative to the DOT file): ${(error as Error).message}. Fix the path, or declare the inputs inline: inputs="repo: string, issue: integer".`,
      cause: error,
    });
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new InputsInvalidError({
      message: `The input schema ${path} is not valid JSON: ${(error as Error).message}.`,
      cause: error,
    });
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InputsInvalidError({ message: `The input schema ${path} is not a JSON Schema object.` });
  }
  return schema as JsonSchemaObject;
}

/** Options of {@link validatePipelineInputs}. */
export interface ValidatePipelineInputsOptions extends ReadInputSchemaOptions {
  /** The values given for the run, by input name. Default: none. */
  readonly inputs?: Readonly<Record<string, JsonValue>>;
}

/**
 * Checks the run's inputs against the graph's `inputs` and returns them. A graph without `inputs` takes none.
 *
 * @throws {InputsInvalidError} naming each field, what it expects and the value given: a missing required input, a
 *   value of another type, an input the graph does not declare; or an unreadable schema file.
 */
export async function validatePipelineInputs(
  options: ValidatePipelineInputsOptions,
): Promise<Readonly<Record<string, JsonValue>>> {
  const inputs = options.inputs ?? {};
  const schema = await readInputSchema(options);
  const given = Object.keys(inputs);
  if (schema === undefined) {
    if (given.length === 0) return inputs;
    throw new InputsInvalidError({
      message: `Graph "${options.graph.id}" declares no inputs, but the run was given ${given.map((name) => `"${name}"`).join(', ')}. Declare them with graph [inputs="${given.map((name) => `${name}: string`).join(', ')}"], or pass initial context values instead (--set).`,
      problems: given.map((name) => ({
        field: name,
        expected: 'nothing (not declared)',
        value: inputs[name] ?? null,
        message: 'is not declared',
      })),
    });
  }
  let validate: ReturnType<typeof createJsonSchemaValidator>;
  try {
    validate = createJsonSchemaValidator(schema);
  } catch (error) {
    throw new InputsInvalidError({
      message: `The input schema of graph "${options.graph.id}" is not a valid JSON Schema: ${(error as Error).message}.`,
      cause: error,
    });
  }
  const problems = validate(inputs as JsonValue);
  if (problems.length === 0) return inputs;
  const declared = options.graph.attributes.inputs?.value.trim() ?? '';
  throw new InputsInvalidError({
    message: `The inputs of graph "${options.graph.id}" do not match its declaration (inputs="${declared}"):\n${problems.map((problem) => `  - input "${problem.field}" ${problem.message}${hintOf(schema, problem)}`).join('\n')}`,
    problems,
  });
}

/**
 * What a problem's line adds: the type a missing input expects, the declared name an undeclared one is near
 * (`file` → `"files"`), or how a list is written where a list was expected.
 */
function hintOf(
  schema: JsonSchemaObject,
  problem: { readonly field: string; readonly message: string; readonly value?: JsonValue },
): string {
  if (problem.message.startsWith('is required'))
    return ` (expected ${expectedOfField(schema, problem.field)})`;
  if (problem.message === 'is not declared' && !problem.field.includes('.') && !problem.field.includes('[')) {
    const properties = schema.properties;
    const names = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
    const near = didYouMean(problem.field, names);
    return near === undefined ? '' : ` (did you mean "${near}"?)`;
  }
  if (problem.message.startsWith('must be a list') && typeof problem.value === 'string') {
    return ` (a list is written as JSON: ${JSON.stringify([problem.value])})`;
  }
  return '';
}

/** The expected type of a top-level field of an object schema, in words, for a missing input. */
function expectedOfField(schema: JsonSchemaObject, field: string): string {
  const properties = schema.properties as Record<string, { type?: unknown }> | undefined;
  const type = properties?.[field]?.type;
  if (type === 'array') return 'a list';
  return typeof type === 'string' ? `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}` : 'a value';
}

/**
 * Reads one input given as text (`--input issue=42`): as written when the schema declares the input a string (so
 * `--input version=1.0` stays `"1.0"`), else JSON-parsed when it is valid JSON (`42`, `true`, `["a"]`), else as
 * written (and refused by {@link validatePipelineInputs} when the type does not match).
 */
export function parseInputText(schema: JsonSchemaObject | undefined, name: string, text: string): JsonValue {
  const properties = schema?.properties as Record<string, { type?: unknown }> | undefined;
  if (properties?.[name]?.type === 'string') return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The run's inputs as the context holds them (`input.<name>` keys), by name: what `$input.<name>` expands to. */
export function inputsOfContext(values: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  return valuesUnderPrefix(values, INPUT_CONTEXT_PREFIX);
}

/** The context values whose keys start with `prefix`, by the rest of the key. Internal to the engine. */
export function valuesUnderPrefix(
  values: Readonly<Record<string, JsonValue>>,
  prefix: string,
): Record<string, JsonValue> {
  const found: Record<string, JsonValue> = {};
  for (const key in values) {
    if (key.startsWith(prefix)) found[key.slice(prefix.length)] = values[key]!;
  }
  return found;
}

/** The context values of the inputs: `{ repo: 'acme/api' }` → `{ 'input.repo': 'acme/api' }`. */
export function inputContextValues(inputs: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const values: Record<string, JsonValue> = {};
  for (const name in inputs) values[`${INPUT_CONTEXT_PREFIX}${name}`] = inputs[name]!;
  return values;
}
