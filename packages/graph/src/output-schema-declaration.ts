/**
 * The node attributes of structured stage output (README "Typed data"): `output_schema`, the JSON Schema a stage's
 * output must match, and `out_map`, where its fields go in the context. Parsing is pure and never throws.
 */
import {
  commaEntries,
  type DeclarationFailure,
  declarationFailure,
  type JsonSchemaObject,
  parseInputDeclaration,
} from './input-declaration.js';

/** What `output_schema` declares. */
export type OutputSchemaDeclaration =
  /** Inline JSON Schema (`output_schema="{\"type\": \"object\", ...}"`) or the compact form (`verdict: string`). */
  | { readonly kind: 'schema'; readonly schema: JsonSchemaObject }
  /** A JSON Schema file, relative to the DOT file. */
  | { readonly kind: 'file'; readonly path: string };

/** What {@link parseOutputSchemaDeclaration} returns. */
export type OutputSchemaDeclarationResult =
  | { readonly ok: true; readonly declaration: OutputSchemaDeclaration }
  | DeclarationFailure;

/**
 * Parses an `output_schema` value: a JSON object (`{...}`) is an inline JSON Schema; a path ending in `.json` a
 * schema file; anything else the compact form of `inputs` (`verdict: string, issues?: string[]`), an object with
 * those fields.
 */
export function parseOutputSchemaDeclaration(text: string): OutputSchemaDeclarationResult {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let schema: unknown;
    try {
      schema = JSON.parse(trimmed);
    } catch (error) {
      return declarationFailure([
        {
          message: `the inline JSON Schema is not JSON (${(error as Error).message})`,
          offset: 0,
          length: text.length,
        },
      ]);
    }
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return declarationFailure([
        { message: 'the inline JSON Schema is not an object', offset: 0, length: text.length },
      ]);
    }
    return { ok: true, declaration: { kind: 'schema', schema: schema as JsonSchemaObject } };
  }
  if (trimmed === '') return declarationFailure([{ message: 'it is empty', offset: 0, length: 0 }]);
  const parsed = parseInputDeclaration(text);
  if (!parsed.ok) return parsed;
  const declaration = parsed.declaration;
  return {
    ok: true,
    declaration:
      declaration.kind === 'file'
        ? declaration
        : { kind: 'schema', schema: { ...declaration.schema, additionalProperties: true } },
  };
}

/** One entry of `out_map`: the output field (a dotted path into the output) and the context key it goes to. */
export interface OutMapEntry {
  readonly field: string;
  readonly key: string;
  /** Where `key` starts in the `out_map` value (0-based, in characters): lint points at it. */
  readonly keyOffset: number;
}

/** What {@link parseOutMap} returns. */
export type OutMapResult =
  | { readonly ok: true; readonly entries: readonly OutMapEntry[] }
  | DeclarationFailure;

const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/**
 * Parses `out_map`: comma-separated `field -> context.key` entries (`verdict -> review.verdict, issues ->
 * review.issues`); a field may be a dotted path into the output (`summary.text -> summary`).
 */
export function parseOutMap(text: string): OutMapResult {
  const entries: OutMapEntry[] = [];
  const { entries: parts, errors } = commaEntries(text);
  for (const { part, at } of parts) {
    const arrow = part.indexOf('->');
    const field = arrow < 0 ? '' : part.slice(0, arrow).trim();
    const key = arrow < 0 ? '' : part.slice(arrow + 2).trim();
    if (!PATH.test(field) || !PATH.test(key)) {
      errors.push({
        message: `"${part.trim()}" is not "field -> context.key" (e.g. verdict -> review.verdict)`,
        offset: at + part.indexOf(part.trim()),
        length: part.trim().length,
      });
      continue;
    }
    entries.push({ field, key, keyOffset: at + arrow + 2 + part.slice(arrow + 2).indexOf(key) });
  }
  if (errors.length > 0) return declarationFailure(errors);
  return { ok: true, entries };
}
