/**
 * What `runPipeline` / `resumePipeline` resolve with.
 */
import type { BudgetStop } from './check-budget.js';
import type { Context } from './context.js';
import type { JsonValue } from './json-value.js';
import type { Outcome } from './outcome.js';

/** The final status of a run: `cancelled` means the run's AbortSignal stopped it; the run can be resumed. */
export type RunStatus = 'success' | 'fail' | 'cancelled';

/** The result of a whole run (spec §3.2 final Outcome, plus the run's state). */
export interface RunResult {
  readonly status: RunStatus;
  /** Why the run failed or was cancelled, naming the node and the limit where one applies. */
  readonly failureReason?: string;
  /**
   * Set when the run failed because it spent its budget (`max_budget_usd`, `max_tokens`): which one, its limit and
   * what was spent. Resuming with a bigger budget continues it at the stage that was stopped.
   */
  readonly budgetStop?: BudgetStop;
  /**
   * Every node execution of the run in order (a node visited twice appears twice), across resumes. After a
   * `loop_restart`, those of the last run directory (each directory's `events.jsonl` keeps its own).
   */
  readonly completedNodes: readonly string[];
  /** The latest outcome of every node that ran (docs/architecture.md "Goal gates"). */
  readonly nodeOutcomes: Readonly<Record<string, Outcome>>;
  /**
   * The run's result when the graph declares `outputs` and the run succeeded (README "Typed data"): the value of each
   * output key the context holds, by key, secrets masked; also written to `output.json`. Absent otherwise.
   */
  readonly output?: Readonly<Record<string, JsonValue>>;
  /** The final context. */
  readonly context: Context;
  /** The run directory. After a `loop_restart` this is the last (newest) run directory. */
  readonly logsRoot: string;
  /** Wall time of this invocation, in milliseconds (from the injected clock). */
  readonly durationMs: number;
}
