/**
 * The graph's `inputs` and `outputs` attributes (README "Typed data"): what a pipeline takes when it starts and which
 * context keys form its result. Parsing is pure and never throws; the engine validates values, lint reports errors.
 */

/** A JSON Schema object, as `inputs` declares it or a schema file holds it. */
export type JsonSchemaObject = { readonly [key: string]: unknown };

/** The value types of the compact form; each may be followed by `[]` (a list of it), once or more. */
export const INPUT_TYPE_NAMES = ['string', 'integer', 'number', 'boolean', 'object', 'any'] as const;

/** One input of the compact form: `repo: string`, `labels?: string[]`. */
export interface InputField {
  readonly name: string;
  /** The type as written, without blanks: `string`, `string[]`, `integer`. */
  readonly type: string;
  /** `?` after the name: the input may be left out. */
  readonly optional: boolean;
}

/** What `inputs` declares. */
export type InputDeclaration =
  /** The compact form `repo: string, issue: integer, labels?: string[]`, with the JSON Schema it stands for. */
  | { readonly kind: 'fields'; readonly fields: readonly InputField[]; readonly schema: JsonSchemaObject }
  /** A JSON Schema file (`inputs="schemas/in.json"`), relative to the DOT file. */
  | { readonly kind: 'file'; readonly path: string };

/** A mistake in an `inputs` or `outputs` value, at `offset` (`length` characters) of the decoded value. */
export interface DeclarationError {
  readonly message: string;
  readonly offset: number;
  readonly length: number;
}

/** A declaration that does not parse: every mistake found, in the order they appear in the value. */
export interface DeclarationFailure {
  readonly ok: false;
  /** The first mistake (`errors[0]`). */
  readonly error: DeclarationError;
  /** Every mistake, each entry checked on its own, so one pass of lint reports all of them. */
  readonly errors: readonly DeclarationError[];
}

/** What {@link parseInputDeclaration} returns. */
export type InputDeclarationResult =
  | { readonly ok: true; readonly declaration: InputDeclaration }
  | DeclarationFailure;

/** A name of an input or a part of an output key: a letter or `_`, then letters, digits and `_`. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELD = /^\s*([^\s:?]*)\s*(\?)?\s*:\s*(.*?)\s*$/;

/**
 * Parses an `inputs` value: a path ending in `.json` is a JSON Schema file; anything else is the compact form, a
 * comma-separated list of `name: type` (`name?: type` when the input may be left out), where a type is one of
 * {@link INPUT_TYPE_NAMES}, optionally followed by `[]`. The compact form stands for an object schema whose
 * properties are the inputs, whose required names are those without `?`, and which refuses other names.
 *
 * @example parseInputDeclaration('repo: string, labels?: string[]')
 * // { ok: true, declaration: { kind: 'fields', fields: [...], schema: { type: 'object', properties: { repo: { type: 'string' },
 * //   labels: { type: 'array', items: { type: 'string' } } }, required: ['repo'], additionalProperties: false } } }
 */
export function parseInputDeclaration(text: string): InputDeclarationResult {
  const trimmed = text.trim();
  if (trimmed.endsWith('.json') && !trimmed.includes(':')) {
    return { ok: true, declaration: { kind: 'file', path: trimmed } };
  }
  const fields: InputField[] = [];
  // Names seen, also of entries with a bad type: a later entry of the same name is still a duplicate.
  const names = new Set<string>();
  const { entries, errors } = commaEntries(text);
  for (const { part, at } of entries) {
    const match = FIELD.exec(part);
    if (match === null) {
      errors.push(mistake(`"${part.trim()}" is not "name: type" (e.g. repo: string)`, at, part.length));
      continue;
    }
    const [, name = '', optional, type = ''] = match;
    const nameAt = at + part.indexOf(name);
    if (!NAME.test(name)) {
      errors.push(
        mistake(
          `"${name}" is not an input name (a letter or _, then letters, digits and _)`,
          nameAt,
          name.length,
        ),
      );
      continue;
    }
    if (names.has(name)) {
      errors.push(mistake(`input "${name}" is declared twice`, nameAt, name.length));
      continue;
    }
    names.add(name);
    const compactType = type.replace(/\s+/g, '');
    if (typeSchema(compactType) === undefined) {
      errors.push(
        mistake(
          `"${type}" is not a type: write one of ${INPUT_TYPE_NAMES.join(', ')}, optionally followed by [] for a list`,
          at + part.lastIndexOf(type),
          Math.max(type.length, 1),
        ),
      );
      continue;
    }
    fields.push({ name, type: compactType, optional: optional === '?' });
  }
  if (errors.length > 0) return declarationFailure(errors);
  return { ok: true, declaration: { kind: 'fields', fields, schema: fieldsSchema(fields) } };
}

/** The JSON Schema of one compact type (`string[]` → an array of strings), or undefined when it is not one. */
function typeSchema(type: string): JsonSchemaObject | undefined {
  if (type.endsWith('[]')) {
    const items = typeSchema(type.slice(0, -2));
    return items === undefined ? undefined : { type: 'array', items };
  }
  if (type === 'any') return {};
  return (INPUT_TYPE_NAMES as readonly string[]).includes(type) ? { type } : undefined;
}

function fieldsSchema(fields: readonly InputField[]): JsonSchemaObject {
  const properties: Record<string, JsonSchemaObject> = {};
  for (const field of fields) properties[field.name] = typeSchema(field.type) ?? {};
  return {
    type: 'object',
    properties,
    required: fields.filter((field) => !field.optional).map((field) => field.name),
    additionalProperties: false,
  };
}

/** What {@link parseOutputsDeclaration} returns. */
export type OutputsDeclarationResult =
  | { readonly ok: true; readonly keys: readonly string[] }
  | DeclarationFailure;

/**
 * Parses an `outputs` value: the comma-separated context keys that form the run's result (`summary, review.verdict`),
 * each made of names joined by dots. The result object has one property per key, named by the key.
 */
export function parseOutputsDeclaration(text: string): OutputsDeclarationResult {
  const keys: string[] = [];
  const { entries, errors } = commaEntries(text);
  for (const { part, at } of entries) {
    const key = part.trim();
    const keyAt = at + part.indexOf(key);
    if (!key.split('.').every((name) => NAME.test(name))) {
      errors.push(
        mistake(
          `"${key}" is not a context key (names of letters, digits and _, joined by dots)`,
          keyAt,
          key.length,
        ),
      );
    } else if (keys.includes(key)) {
      errors.push(mistake(`output "${key}" is listed twice`, keyAt, key.length));
    } else {
      keys.push(key);
    }
  }
  if (errors.length > 0) return declarationFailure(errors);
  return { ok: true, keys };
}

/**
 * The comma-separated non-empty entries of a declaration with their offsets in `text` (none for blank text), and a
 * mistake for each empty entry. Internal to the declaration parsers: they add their own mistakes to `errors`.
 */
export function commaEntries(text: string): {
  readonly entries: readonly { readonly part: string; readonly at: number }[];
  readonly errors: DeclarationError[];
} {
  const entries: { part: string; at: number }[] = [];
  const errors: DeclarationError[] = [];
  if (text.trim() === '') return { entries, errors };
  let offset = 0;
  for (const part of text.split(',')) {
    if (part.trim() === '')
      errors.push(mistake('an empty entry (two commas, or a comma at the end)', offset, part.length));
    else entries.push({ part, at: offset });
    offset += part.length + 1;
  }
  return { entries, errors };
}

function mistake(message: string, offset: number, length: number): DeclarationError {
  return { message, offset, length };
}

/** The failure of a parser that found `errors` (not empty), in the order they appear. Internal to the parsers. */
export function declarationFailure(errors: readonly DeclarationError[]): DeclarationFailure {
  const sorted = [...errors].sort((a, b) => a.offset - b.offset);
  return { ok: false, error: sorted[0]!, errors: sorted };
}

/** How a declared state field merges the writes of parallel branches at their join (README "Typed data"). */
export type StateMergeRule = 'replace' | 'append' | 'merge_object';

/** The merge rules a `state` entry may name. */
export const STATE_MERGE_RULES: readonly StateMergeRule[] = ['replace', 'append', 'merge_object'];

/** What {@link parseStateDeclaration} returns. */
export type StateDeclarationResult =
  | { readonly ok: true; readonly fields: Readonly<Record<string, StateMergeRule>> }
  | DeclarationFailure;

/**
 * Parses the graph's `state`: comma-separated `key: rule` entries (`findings: append, summary: replace, scores:
 * merge_object`), a key being a context key (names joined by dots).
 */
export function parseStateDeclaration(text: string): StateDeclarationResult {
  const fields: Record<string, StateMergeRule> = {};
  const { entries, errors } = commaEntries(text);
  for (const { part, at } of entries) {
    const colon = part.indexOf(':');
    const key = colon < 0 ? part.trim() : part.slice(0, colon).trim();
    const rule = colon < 0 ? '' : part.slice(colon + 1).trim();
    const keyAt = at + Math.max(part.indexOf(key), 0);
    if (!key.split('.').every((name) => NAME.test(name))) {
      errors.push(
        mistake(
          `"${key}" is not a context key (names of letters, digits and _, joined by dots)`,
          keyAt,
          key.length,
        ),
      );
    } else if (!(STATE_MERGE_RULES as readonly string[]).includes(rule)) {
      errors.push(
        mistake(
          `"${part.trim()}" does not name a merge rule: write "${key}: replace", "${key}: append" or "${key}: merge_object"`,
          keyAt,
          part.trim().length,
        ),
      );
    } else if (Object.hasOwn(fields, key)) {
      errors.push(mistake(`state field "${key}" is declared twice`, keyAt, key.length));
    } else {
      fields[key] = rule as StateMergeRule;
    }
  }
  if (errors.length > 0) return declarationFailure(errors);
  return { ok: true, fields };
}
