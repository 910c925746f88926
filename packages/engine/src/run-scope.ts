/**
 * What every walk of one run directory shares: the graph, the handlers, the services and the event bus.
 */

import type { Graph } from '@attractor/graph';
import type { ArtifactStore } from './artifact-store.js';
import type { RunBudget } from './check-budget.js';
import type { Clock } from './clock.js';
import type { CodergenBackend } from './codergen-backend.js';
import type { EventBus } from './event-bus.js';
import type { HandlerRegistry } from './handler-registry.js';
import type { ChildRunHandle, RunChildOptions } from './handler-runtime.js';
import type { Interviewer } from './interviewer.js';
import type { RunStore } from './run-store.js';

/** Where a stage asked for a child pipeline. */
export interface ChildOrigin {
  readonly nodeId: string;
  readonly branchPath: readonly string[];
  readonly abortSignal: AbortSignal;
}

/** The services of one run directory. Internal to the engine. */
export interface RunScope {
  readonly graph: Graph;
  readonly registry: HandlerRegistry;
  readonly bus: EventBus;
  readonly store: RunStore;
  readonly clock: Clock;
  readonly random: () => number;
  readonly interviewer: Interviewer | undefined;
  readonly backend: CodergenBackend | undefined;
  readonly artifacts: ArtifactStore;
  readonly runId: string;
  readonly logsRoot: string;
  readonly workdir: string;
  readonly graphSha256: string;
  /** Known secret values scrubbed from events and status files. */
  readonly secretValues: readonly string[];
  /** Ids of the terminal nodes (cached: `graph.exitNodes` scans every node). */
  readonly exitNodeIds: ReadonlySet<string>;
  /** Ids of the goal-gate nodes. */
  readonly goalGateIds: ReadonlySet<string>;
  /** Node executions allowed per walk (`max_steps`). */
  readonly maxSteps: number;
  /** LLM budgets (`max_budget_usd`, `max_tokens`), checked before each LLM stage. */
  readonly budget: RunBudget;
  /** Starts a child pipeline for a manager loop (spec §4.11). */
  readonly startChild: (options: RunChildOptions, origin: ChildOrigin) => ChildRunHandle;
}
