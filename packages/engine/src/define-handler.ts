/**
 * Handlers that declare themselves (DESIGN.md "Handler contract"): `defineHandler({ type, attributes, outcomes,
 * execute })` gives a handler its type, a zod schema of the node attributes it reads and the outcomes it can
 * return. The registry hands that metadata to lint (`HandlerRegistry.lintInfo()` → `validate({ handlers })`), so a
 * declared attribute is not an `unknown_attribute`, a bad value is an `attribute_type` error from the schema, and
 * `outcome_coverage` knows what the handler returns.
 */
import type { Graph, GraphNode, HandlerLintInfo } from '@attractor/graph';
import type { z } from 'zod';
import type { Context } from './context.js';
import type { Handler } from './handler.js';
import type { HandlerRuntime } from './handler-runtime.js';
import type { Outcome, OutcomeStatus } from './outcome.js';

/** The one argument of a declared handler's `execute`. */
export interface HandlerInput<TAttributes> {
  /** The node being executed. */
  readonly node: GraphNode;
  /** The node's declared attributes, parsed by the handler's schema (DOT values are strings: use `z.coerce`). */
  readonly attributes: TAttributes;
  /** The run context (spec §5.1): read it freely, but prefer returning `contextUpdates`. */
  readonly context: Context;
  /** The whole graph. */
  readonly graph: Graph;
  /** Signal, events, interviewer, backend, stage directory, `runBranch` (see `HandlerRuntime`). */
  readonly runtime: HandlerRuntime;
}

/** What {@link defineHandler} takes. */
export interface HandlerDefinition<TSchema extends z.ZodObject> {
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
  /** Its metadata for lint (`validate({ handlers })` of `@attractor/graph`). */
  readonly lintInfo: HandlerLintInfo;
}

/**
 * Declares a handler: its type, the zod schema of its attributes, its outcomes and `execute({ node, attributes,
 * context, graph, runtime })`. Register it with `registry.register(handler)`. A node whose declared attributes do not
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
  return {
    type: definition.type,
    attributeKeys,
    outcomes: definition.outcomes,
    lintInfo: {
      attributeKeys,
      checkAttributes: problems,
      ...(definition.outcomes === undefined ? {} : { outcomes: definition.outcomes }),
    },
    async execute(node, context, graph, _logsRoot, runtime) {
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
      return definition.execute({ node, attributes, context, graph, runtime });
    },
  };
}

/** True for a handler made by {@link defineHandler}. */
export function isDeclaredHandler(handler: Handler): handler is DeclaredHandler {
  return typeof (handler as Partial<DeclaredHandler>).type === 'string' && 'lintInfo' in handler;
}
