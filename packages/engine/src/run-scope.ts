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
import type { ProcessGroupRecorder } from './process-group-file.js';
import type { SecretMasker } from './redact-secrets.js';
import type { RunLock } from './run-lock.js';
import type { CheckpointOrigin, RunStore } from './run-store.js';
import type { RunWorkspace } from './run-workspace.js';

/** Where a stage asked for a child pipeline. */
export interface ChildOrigin {
  readonly nodeId: string;
  /** The calling stage's path and the parent run's store: the child's store is `store.child('{stagePath}/{name}')`. */
  readonly stagePath: string;
  readonly store: RunStore;
  readonly branchPath: readonly string[];
  readonly abortSignal: AbortSignal;
}

/** The process groups of a run's running stage commands. Internal to the engine. */
export interface ProcessGroupRecord {
  /** Records a group; returns the function that forgets it. */
  add(processGroupId: number): () => void;
}

/**
 * Mirrors the process groups of a run's running commands into its lock's holder record. A failed write is reported
 * through `onError` (the run goes on: the record only helps a later takeover).
 */
export function recordProcessGroups(lock: RunLock, onError: (error: unknown) => void): ProcessGroupRecord {
  const running = new Set<number>();
  let writes = Promise.resolve();
  const write = () => {
    const groups = [...running];
    writes = writes.then(() => lock.setProcessGroups(groups)).catch(onError);
  };
  return {
    add(processGroupId) {
      running.add(processGroupId);
      write();
      return () => {
        if (running.delete(processGroupId)) write();
      };
    },
  };
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
  /** Where stages work: the workspace's directory when there is one. */
  readonly workdir: string;
  /** The workspace of this walk (the run's, or a parallel branch's); absent when the run works in place. */
  readonly workspace?: RunWorkspace | undefined;
  readonly graphSha256: string;
  /** Masks secrets at every boundary (DESIGN.md "Secrets"). */
  readonly secrets: SecretMasker;
  /** Records running commands' process groups in `process-groups.json` of the run directory (file stores only). */
  readonly processGroupFile?: ProcessGroupRecorder;
  /** Ids of the terminal nodes (cached: `graph.exitNodes` scans every node). */
  readonly exitNodeIds: ReadonlySet<string>;
  /** Ids of the goal-gate nodes. */
  readonly goalGateIds: ReadonlySet<string>;
  /** Node executions allowed per walk (`max_steps`). */
  readonly maxSteps: number;
  /** The run lock this walk holds (its holder record takes the process groups of running stage commands). */
  readonly lock: RunLock;
  /** The process groups of running stage commands, mirrored into the lock's holder record. */
  readonly processGroups: ProcessGroupRecord;
  /** Set on a forked run: recorded in every checkpoint. */
  readonly origin?: CheckpointOrigin | undefined;
  /** LLM budgets (`max_budget_usd`, `max_tokens`), checked before each LLM stage. */
  readonly budget: RunBudget;
  /** Starts a child pipeline for a manager loop (spec §4.11). */
  readonly startChild: (options: RunChildOptions, origin: ChildOrigin) => ChildRunHandle;
}
