/**
 * JSON Schema validation (README "Typed data"): the run's inputs against the graph's `inputs`, by Ajv (draft-07 and
 * 2019-09 keywords), with each problem named by its field, what the schema expects and the value found.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { JsonValue } from './json-value.js';

/** One way a value does not match a schema. */
export interface JsonSchemaProblem {
  /** Where, as a field path: `issue`, `labels[1]`, `review.verdict`; `""` for the value itself. */
  readonly field: string;
  /** What the schema expects there, in words: `an integer`, `one of approve, reject`, `a value (required)`. */
  readonly expected: string;
  /** The value found there; absent when the field is missing. */
  readonly value?: JsonValue;
  /** The problem as a sentence without the field: `must be an integer, got "forty-two"`. */
  readonly message: string;
}

/** Checks a value against one schema; returns the problems (none when it matches). */
export type JsonSchemaValidator = (value: JsonValue) => readonly JsonSchemaProblem[];

/** Raised by {@link createJsonSchemaValidator} for a schema that Ajv cannot compile. */
export interface InvalidSchema {
  readonly message: string;
}

/**
 * Compiles `schema` (a JSON Schema object) into a validator that lists every problem (Ajv `allErrors`), in the
 * schema's words. Unknown keywords and formats are ignored (`strict: false`), so schemas written for other tools load.
 *
 * @throws {Error} when the schema itself is invalid (Ajv's message, e.g. `schema is invalid: data/type must be ...`).
 */
export function createJsonSchemaValidator(schema: Readonly<Record<string, unknown>>): JsonSchemaValidator {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => problemOf(error, value));
  };
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function problemOf(error: ErrorObject, root: JsonValue): JsonSchemaProblem {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const field = fieldPath([...segments, String(params.missingProperty)]);
    return { field, expected: 'a value (required)', message: 'is required and missing' };
  }
  if (error.keyword === 'additionalProperties') {
    const field = fieldPath([...segments, String(params.additionalProperty)]);
    return {
      field,
      expected: 'nothing (not declared)',
      value: valueAt(root, [...segments, String(params.additionalProperty)]) ?? null,
      message: 'is not declared',
    };
  }
  const field = fieldPath(segments);
  const value = valueAt(root, segments) ?? null;
  const expected = expectedOf(error);
  return { field, expected, value, message: `must be ${expected}, got ${JSON.stringify(value)}` };
}

function expectedOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return types.map((type) => TYPE_WORDS[type] ?? type).join(' or ');
    }
    case 'enum':
      return `one of ${(params.allowedValues as unknown[]).map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ')}`;
    case 'const':
      return JSON.stringify(params.allowedValue);
    default:
      // "must be >= 1", "must NOT have fewer than 2 items": Ajv's words without "must".
      return (error.message ?? error.keyword).replace(/^must (be )?/, '');
  }
}

/** `['labels', '1', 'name']` → `labels[1].name`. */
function fieldPath(segments: readonly string[]): string {
  let path = '';
  for (const segment of segments) {
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

function valueAt(root: JsonValue, segments: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Array.isArray(value) ? value[Number(segment)] : (value as Record<string, JsonValue>)[segment];
  }
  return value;
}
