/**
 * A handler for tests whose outcomes are scripted per node, and which records every call.
 */
import type { GraphNode } from '@attractor/graph';
import type { Context } from '../context.js';
import type { Handler } from '../handler.js';
import type { HandlerRuntime } from '../handler-runtime.js';
import type { JsonValue } from '../json-value.js';
import type { Outcome, OutcomeStatus } from '../outcome.js';

/** One scripted step: an outcome, a bare status, an error to throw, or a function computing the outcome. */
export type ScriptStep =
  | Outcome
  | OutcomeStatus
  | { readonly throw: string; readonly retryable?: boolean }
  | ((call: ScriptedCall) => Outcome | Promise<Outcome>);

/** What the scripted handler saw on one call. */
export interface ScriptedCall {
  readonly nodeId: string;
  readonly visit: number;
  readonly attempt: number;
  /** The context values at the start of the call. */
  readonly context: Readonly<Record<string, JsonValue>>;
  readonly node: GraphNode;
  readonly runtime: HandlerRuntime;
  /** The live context. */
  readonly liveContext: Context;
}

/** Options of {@link createScriptedHandler}. */
export interface ScriptedHandlerOptions {
  /** Per node id, the steps of successive calls; the last step repeats once the list is used up. */
  readonly script?: Readonly<Record<string, readonly ScriptStep[]>>;
  /** The step for nodes without a script. Default: `'success'`. */
  readonly fallback?: ScriptStep;
}

/** A {@link Handler} with its recorded calls. */
export interface ScriptedHandler extends Handler {
  readonly calls: ScriptedCall[];
  /** The node ids of the calls, in order. */
  nodeIds(): string[];
}

/**
 * Creates a handler that returns scripted outcomes.
 *
 * @example
 * const handler = createScriptedHandler({ script: { flaky: ['fail', 'fail', 'success'] } });
 * const registry = new HandlerRegistry({ defaultHandler: handler });
 */
export function createScriptedHandler(options: ScriptedHandlerOptions = {}): ScriptedHandler {
  const calls: ScriptedCall[] = [];
  const used = new Map<string, number>();
  return {
    calls,
    nodeIds: () => calls.map((call) => call.nodeId),
    async execute({ node, context, runtime }) {
      const call: ScriptedCall = {
        nodeId: node.id,
        visit: runtime.visit,
        attempt: runtime.attempt,
        context: context.snapshot(),
        node,
        runtime,
        liveContext: context,
      };
      calls.push(call);
      const steps = options.script?.[node.id];
      let step: ScriptStep;
      if (steps === undefined || steps.length === 0) step = options.fallback ?? 'success';
      else {
        const position = used.get(node.id) ?? 0;
        used.set(node.id, position + 1);
        step = steps[Math.min(position, steps.length - 1)]!;
      }
      if (typeof step === 'function') return step(call);
      if (typeof step === 'string') return { status: step };
      if ('throw' in step) {
        throw Object.assign(
          new Error(step.throw),
          step.retryable === undefined ? {} : { retryable: step.retryable },
        );
      }
      return step;
    },
  };
}
