/**
 * Handlers that declare themselves (docs/architecture.md "Handler contract"):
 * `defineHandler({ type, attributes, outcomes, execute })` gives a handler its type, a zod schema of the node
 * attributes it reads and the outcomes it can return. The registry hands that metadata to lint
 * (`HandlerRegistry.lintInfo()` → `validate({ handlers })`), so a declared attribute is not an
 * `unknown_attribute`, a bad value is an `attribute_type` error from the schema, and `outcome_coverage` knows
 * what the handler returns. The built-in handlers are declared the same way, with the schemas of
 * `SPEC_HANDLER_DECLARATIONS` (`@attractor/graph`).
 */
import {
  type AttributeChecks,
  type AttributesSchema,
  attributeChecks,
  HANDLER_CAPABILITY_FLAGS,
  type HandlerLintInfo,
  type HandlerTraits,
} from '@attractor/graph';
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
export interface HandlerDefinition<TSchema extends AttributesSchema> extends HandlerTraits {
  /** The handler type nodes select with `type="..."` (or through their shape). */
  readonly type: string;
  /**
   * The node attributes the handler reads, as a zod object schema over their DOT string values (`zod` or
   * `zod/mini`; `attributeSchema(key)` of `@attractor/graph` types a key of the attribute table). Default: none.
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
export function defineHandler<TSchema extends AttributesSchema>(
  definition: HandlerDefinition<TSchema>,
): DeclaredHandler {
  const schema = definition.attributes;
  const { attributeKeys, checkAttributes, parseAttributes } = (
    schema === undefined ? NO_ATTRIBUTES : attributeChecks(schema)
  ) as AttributeChecks<z.output<TSchema>>;
  const traits = pickTraits(definition);
  return {
    type: definition.type,
    attributeKeys,
    outcomes: definition.outcomes,
    traits,
    lintInfo: {
      ...traits,
      attributeKeys,
      checkAttributes,
      ...(definition.outcomes === undefined ? {} : { outcomes: definition.outcomes }),
    },
    async execute(input) {
      const { node } = input;
      const values: Record<string, string> = {};
      for (const key of attributeKeys) {
        const attribute = Object.hasOwn(node.attributes, key) ? node.attributes[key] : undefined;
        if (attribute !== undefined) values[key] = attribute.value;
      }
      const parsed = parseAttributes(values);
      if (!parsed.ok) {
        const [first] = parsed.problems;
        return {
          status: 'fail',
          failureReason: `node "${node.id}" has an invalid ${first?.key || 'attribute'}: ${first?.message ?? 'invalid attributes'}`,
          retryable: false,
        };
      }
      const attributes = parsed.value;
      return definition.execute({ ...input, attributes });
    },
  };
}

const NO_ATTRIBUTES: AttributeChecks<Record<string, never>> = {
  attributeKeys: [],
  checkAttributes: () => [],
  parseAttributes: () => ({ ok: true, value: {} }),
};

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
