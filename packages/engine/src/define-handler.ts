/**
 * Handlers that declare themselves (DESIGN.md "Handler contract"): `defineHandler({ type, attributes, outcomes,
 * execute })` gives a handler its type, a zod schema of the node attributes it reads and the outcomes it can
 * return. The registry hands that metadata to lint (`HandlerRegistry.lintInfo()` → `validate({ handlers })`), so a
 * declared attribute is not an `unknown_attribute`, a bad value is an `attribute_type` error from the schema, and
 * `outcome_coverage` knows what the handler returns.
 */
import { HANDLER_CAPABILITY_FLAGS, type HandlerLintInfo, type HandlerTraits } from '@attractor/graph';
import type { z } from 'zod';
import type { Handler, HandlerExecuteInput } from './handler.js';
import type { Outcome, OutcomeStatus } from './outcome.js';

/** The one argument of a declared handler's `execute`. */
export interface HandlerInput<TAttributes> extends HandlerExecuteInput {
  /** The node's declared attributes, parsed by the handler's schema (DOT values are strings: use `z.coerce`). */
  readonly attributes: TAttributes;
}

/**
 * What {@link defineHandler} takes: the handler's type, attributes, outcomes and execute, plus the capabilities
 * of {@link HandlerTraits} (`role`, `fansOut`, `joinsBranches`, `asksHuman`, `routesOnly`, `callsModel`,
 * `supervisesChild`, `runsCommand`, `runsSubgraph`, `contextKeys`) that the engine and lint read instead of the type string. Default: none of them.
 */
export interface HandlerDefinition<TSchema extends z.ZodObject> extends HandlerTraits {
  /** The handler type nodes select with `type="..."` (or through their shape). */
  readonly type: string;
  /**
   * The node attributes the handler reads, as a zod object schema over their DOT string values. Default: none.
   * @example z.object({ region: z.enum(['eu', 'us']), replicas: z.coerce.number().int().positive().optional() })
   */
  readonly attributes?: TSchema;
  /** Every status or custom outcome word the handler can return. Default: undeclared (any outcome). */
  readonly outcomes?: readonly OutcomeStatus[];
  /** Executes one node. A thrown error becomes a FAIL outcome (spec §3.5). */
  execute(input: HandlerInput<z.output<TSchema>>): Promise<Outcome>;
}

/** A handler made by {@link defineHandler}: a {@link Handler} plus what it declares. */
export interface DeclaredHandler extends Handler {
  /** The handler type. */
  readonly type: string;
  /** The node attribute keys it declares. */
  readonly attributeKeys: readonly string[];
  /** The outcomes it can return, when declared. */
  readonly outcomes: readonly OutcomeStatus[] | undefined;
  /** Its capabilities (see {@link HandlerDefinition}). */
  readonly traits: HandlerTraits;
  /** Its metadata for lint (`validate({ handlers })` of `@attractor/graph`): attributes, outcomes, capabilities. */
  readonly lintInfo: HandlerLintInfo;
}

/**
 * Declares a handler: its type, the zod schema of its attributes, its outcomes, its capabilities and
 * `execute({ node, attributes, context, graph, logsRoot, runtime })`. Register it with `registry.register(handler)`. A node whose declared attributes do not
 * match the schema fails (not retryable) with a reason naming the attribute; lint reports the same as an error.
 *
 * @example
 * const deploy = defineHandler({
 *   type: 'deploy',
 *   attributes: z.object({ region: z.enum(['eu', 'us']) }),
 *   outcomes: ['success', 'fail'],
 *   async execute({ attributes, context }) {
 *     return { status: 'success', contextUpdates: { 'deploy.region': attributes.region } };
 *   },
 * });
 */
export function defineHandler<TSchema extends z.ZodObject>(
  definition: HandlerDefinition<TSchema>,
): DeclaredHandler {
  const schema = definition.attributes;
  const attributeKeys = schema === undefined ? [] : Object.keys(schema.shape);
  const problems = (values: Readonly<Record<string, string>>) => {
    if (schema === undefined) return [];
    const result = schema.safeParse(values);
    if (result.success) return [];
    return result.error.issues.map((issue) => ({
      key: String(issue.path[0] ?? ''),
      message: issue.message,
    }));
  };
  const traits = pickTraits(definition);
  return {
    type: definition.type,
    attributeKeys,
    outcomes: definition.outcomes,
    traits,
    lintInfo: {
      ...traits,
      attributeKeys,
      checkAttributes: problems,
      ...(definition.outcomes === undefined ? {} : { outcomes: definition.outcomes }),
    },
    async execute(input) {
      const { node } = input;
      const values: Record<string, string> = {};
      for (const key of attributeKeys) {
        const attribute = Object.hasOwn(node.attributes, key) ? node.attributes[key] : undefined;
        if (attribute !== undefined) values[key] = attribute.value;
      }
      let attributes = {} as z.output<TSchema>;
      if (schema !== undefined) {
        const parsed = schema.safeParse(values);
        if (!parsed.success) {
          const [first] = problems(values);
          return {
            status: 'fail',
            failureReason: `node "${node.id}" has an invalid ${first?.key ?? 'attribute'}: ${first?.message ?? parsed.error.message}`,
            retryable: false,
          };
        }
        attributes = parsed.data;
      }
      return definition.execute({ ...input, attributes });
    },
  };
}

const TRAIT_KEYS = [
  'role',
  ...HANDLER_CAPABILITY_FLAGS,
  'contextKeys',
] as const satisfies readonly (keyof HandlerTraits)[];

function pickTraits(definition: HandlerTraits): HandlerTraits {
  const traits: Record<string, unknown> = {};
  for (const key of TRAIT_KEYS) if (definition[key] !== undefined) traits[key] = definition[key];
  return traits as HandlerTraits;
}

/** True for a handler made by {@link defineHandler}. */
export function isDeclaredHandler(handler: Handler): handler is DeclaredHandler {
  return typeof (handler as Partial<DeclaredHandler>).type === 'string' && 'lintInfo' in handler;
}
