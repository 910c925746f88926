/**
 * A handler's attributes as a zod schema (docs/architecture.md "Handler contract"): `attributeSchema` turns a
 * key of the attribute table into the zod schema of its DOT value, so a handler declares a key the table
 * types without typing it again; `attributeChecks` turns a handler's zod object schema into what lint reads
 * (`HandlerLintInfo`'s `attributeKeys` and `checkAttributes`). The engine's `defineHandler` and the built-in
 * declarations (`SPEC_HANDLER_DECLARATIONS`) both use them, so lint checks a node with the schema its handler
 * runs with.
 */
import * as z from 'zod/mini';
import { ATTRIBUTE_DEFINITIONS, type AttributeKey, type AttributeValue } from './attribute-schema.js';

/** One invalid attribute of a node, as `checkAttributes` reports it. */
export interface AttributeProblem {
  /** The attribute's canonical key (empty when the problem concerns no single key). */
  readonly key: string;
  /** What is wrong, e.g. `expected a positive integer such as 4` or zod's `Invalid option: expected one of ...`. */
  readonly message: string;
  /**
   * What a valid value looks like, for a key typed by the attribute table (`a positive integer such as 4`): lint
   * then words the finding as for any key of the table ("which is not valid: expected ...").
   */
  readonly expected?: string;
}

/**
 * The zod schema of one optional DOT attribute: its string value in, its typed value out. Built with `zod/mini`
 * (a tenth of the code `attractor validate` would otherwise load); it is a zod schema like any other.
 */
export type AttributeSchema<TValue> = z.ZodMiniOptional<
  z.ZodMiniPipe<z.ZodMiniString<string>, z.ZodMiniTransform<TValue, string>>
>;

/** A zod object schema of node attributes, from `zod` or `zod/mini`. */
export type AttributesSchema = z.core.$ZodObject;

/**
 * The zod schema of the attribute table's key `key` (`attributeSchema('max_parallel')`): optional; the table's value
 * parser turns the DOT string into the typed value (a number, a `JoinPolicy`, milliseconds for a duration), and a
 * malformed value is an issue whose message is `expected <what the table expects>` (its `params.expected` carries the
 * table's words).
 */
export function attributeSchema<TKey extends AttributeKey>(key: TKey): AttributeSchema<AttributeValue<TKey>> {
  const { parse, expected } = ATTRIBUTE_DEFINITIONS[key] as {
    parse: (text: string) => AttributeValue<TKey> | undefined;
    expected: string;
  };
  return z.optional(
    z.pipe(
      z.string(),
      z.transform((text: string, payload) => {
        const value = parse(text);
        if (value !== undefined) return value;
        payload.issues.push({
          code: 'custom',
          input: text,
          message: `expected ${expected}`,
          params: { expected },
        });
        return z.NEVER;
      }),
    ),
  );
}

/**
 * Like {@link attributeSchema}, but a malformed value is no issue and parses to `undefined`: for a key another lint
 * rule reports with its own severity (`fidelity`: a warning of `fidelity_valid`), so a run never fails for it.
 */
export function lenientAttributeSchema<TKey extends AttributeKey>(
  key: TKey,
): AttributeSchema<AttributeValue<TKey> | undefined> {
  const parse = ATTRIBUTE_DEFINITIONS[key].parse as (text: string) => AttributeValue<TKey> | undefined;
  return z.optional(
    z.pipe(
      z.string(),
      z.transform((text: string) => parse(text)),
    ),
  );
}

/** The result of {@link AttributeChecks.parseAttributes}. */
export type ParsedAttributes<TValue> =
  | { readonly ok: true; readonly value: TValue }
  | { readonly ok: false; readonly problems: AttributeProblem[] };

/** What lint (and the engine's `defineHandler`) read of a handler's attribute schema. */
export interface AttributeChecks<TValue = unknown> {
  /** The keys of the schema's shape: the node attributes the handler reads. */
  readonly attributeKeys: readonly string[];
  /** Parses a node's values of those keys (DOT strings) with the schema; one problem per zod issue. Never throws. */
  readonly checkAttributes: (values: Readonly<Record<string, string>>) => AttributeProblem[];
  /** Like `checkAttributes`, but returns the parsed values when there is no problem. Never throws. */
  readonly parseAttributes: (values: Readonly<Record<string, string>>) => ParsedAttributes<TValue>;
}

/**
 * What lint reads of a handler's zod object schema (`HandlerLintInfo.attributeKeys` and `checkAttributes`): its keys,
 * and a check that reports each zod issue as a problem of the key at the head of its path, with the `expected` of an
 * {@link attributeSchema} issue.
 */
export function attributeChecks<TSchema extends AttributesSchema>(
  schema: TSchema,
): AttributeChecks<z.output<TSchema>> {
  const shape = schema._zod.def.shape;
  const attributeKeys = Object.keys(shape);
  const parseAttributes = (values: Readonly<Record<string, string>>): ParsedAttributes<z.output<TSchema>> => {
    const result = safeParse(schema, values);
    return result.success
      ? { ok: true, value: result.data as z.output<TSchema> }
      : { ok: false, problems: result.error.issues.map((issue) => problemOf(issue)) };
  };
  // Lint checks every node of a graph: without checks of the whole object, each field is checked on its own, only
  // for the keys a node has (parsing the whole object costs microseconds per node), and the absent keys' problems
  // are worked out once.
  if ((schema._zod.def.checks?.length ?? 0) > 0) {
    return {
      attributeKeys,
      checkAttributes: (values) => {
        const parsed = parseAttributes(values);
        return parsed.ok ? [] : parsed.problems;
      },
      parseAttributes,
    };
  }
  const problemsOfField = (key: string, value: string | undefined): AttributeProblem[] => {
    const result = safeParse(shape[key]!, value);
    return result.success ? [] : result.error.issues.map((issue) => problemOf(issue, key));
  };
  // The problems of each absent key, in the shape's order (none when every key is optional).
  let absent: ReadonlyMap<string, AttributeProblem[]> | undefined;
  return {
    attributeKeys,
    checkAttributes(values) {
      absent ??= new Map(
        attributeKeys
          .map((key) => [key, problemsOfField(key, undefined)] as const)
          .filter(([, problems]) => problems.length > 0),
      );
      const problems: AttributeProblem[] = [];
      for (const key in values)
        if (Object.hasOwn(shape, key)) problems.push(...problemsOfField(key, values[key]));
      for (const [key, none] of absent) if (!Object.hasOwn(values, key)) problems.push(...none);
      return problems;
    },
    parseAttributes,
  };
}

/**
 * Parses `value` with the schema's own `safeParse` (`zod` and `zod/mini` schemas have one), which words issues in its
 * zod's locale: a plug-in's zod may be another copy than ours, whose messages would be bare ("Invalid input").
 */
function safeParse(schema: z.core.$ZodType, value: unknown): ReturnType<typeof z.safeParse> {
  const own = (schema as { safeParse?: (data: unknown) => ReturnType<typeof z.safeParse> }).safeParse;
  return typeof own === 'function' ? own.call(schema, value) : z.safeParse(schema, value);
}

/** A zod issue as a problem of `key` (default: the head of the issue's path). */
function problemOf(issue: z.core.$ZodIssue, key = String(issue.path[0] ?? '')): AttributeProblem {
  const expected = issue.code === 'custom' ? issue.params?.expected : undefined;
  return { key, message: issue.message, ...(typeof expected === 'string' ? { expected } : {}) };
}
