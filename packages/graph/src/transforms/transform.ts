import type { Graph } from '../graph.js';

/**
 * A graph transform (spec §9.1): runs after parsing and before validation and returns a new graph,
 * leaving its input unchanged (use `graph.with(...)`).
 */
export interface Transform {
  /** A name for messages and debugging, e.g. `expand_goal_variable`. */
  readonly name: string;
  /** Returns the transformed graph; must not modify `graph`. */
  apply(graph: Graph): Graph;
}
