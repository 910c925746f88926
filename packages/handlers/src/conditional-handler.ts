import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import type { RouteFinder } from './route-finder.js';

/** Options of {@link createConditionalHandler}. */
export interface ConditionalHandlerOptions {
  /**
   * In a simulated run: finds a route for a conditional node whose edges test values no simulated stage set (the
   * stage before it usually sets them: see `createRouteFinder`). Default: none (a pass-through, as spec §4.7 says).
   */
  readonly routes?: RouteFinder;
}

/**
 * Creates the `conditional` handler (spec §4.7): a pass-through that returns SUCCESS with a note; the engine's
 * edge selection (spec §3.3) evaluates the outgoing edges' conditions against the outcome and the context. With
 * `routes` (a simulated run), when its plain pass-through would take no edge (nothing set the values its edges test:
 * the stage before it, the run's `--set` values and real tool output decide otherwise), it returns the context values,
 * preferred label and suggested next ids of the route the route finder picks, and says which edge it aims for in a
 * `stage.log` event; with coverage (`attractor test --routes`) it picks among all its edges.
 */
export function createConditionalHandler(options: ConditionalHandlerOptions = {}): DeclaredHandler {
  return defineHandler({
    type: 'conditional',
    ...SPEC_HANDLER_DECLARATIONS.conditional,
    execute: async ({ node, graph, context, runtime }) => {
      const passed = { status: 'success', notes: `Conditional node evaluated: ${node.id}` } as const;
      const aim = options.routes?.aim({
        graph,
        node,
        context,
        visit: runtime.visit,
        statuses: ['success'],
        statusesOfConditions: false,
        setsContext: 'when-stuck',
      });
      if (aim === undefined) return passed;
      runtime.emit({ type: 'stage.log', level: 'info', message: `[Simulated] ${aim.description}` });
      return {
        ...passed,
        notes: `${passed.notes}; [Simulated] ${aim.description}`,
        contextUpdates: aim.contextUpdates,
        ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
        ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
      };
    },
  });
}
