/**
 * The usage ledger of a run: the tokens and cost of every model call the run made (its parallel branches and child
 * runs included), and the budget check made before each LLM stage and each model call. One ledger serves a whole
 * `startPipeline` call; concurrent branches share it, so a branch sees what the others spent. A child run's ledger
 * adds to its parent's, and its checks apply the parent's budget too.
 *
 * The ledger counts the `agent.usage` events the run emits (each backend emits one per model call, with the call's
 * tokens and, where priced, its cost), so any backend or handler that reports its calls is counted, wherever it runs.
 */
import { type BudgetStop, budgetStop, type RunBudget } from './check-budget.js';
import { BudgetExceededError } from './errors/budget-exceeded-error.js';
import type { PipelineEvent } from './pipeline-event.js';
import { type UsageTotals, ZERO_USAGE_TOTALS } from './usage-totals.js';

/**
 * The run's usage as a handler or backend sees it (`runtime.usage`, `CodergenRequest.usage`): the totals so far
 * and the budget check to make before each model call.
 */
export interface RunUsage {
  /** The run's usage so far: every model call of the run, its parallel branches and child runs included. */
  totals(): UsageTotals;
  /**
   * Call before each model call. Returns when the budget lasts.
   * @throws {BudgetExceededError} (not retryable) once the run spent a budget (`max_budget_usd`, `max_tokens`, of this
   *   run or of a parent run); the run then stops at the end of the running stage and can be resumed with a bigger
   *   budget.
   */
  checkBudget(): void;
}

function amount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Options of {@link UsageLedger}. */
export interface UsageLedgerOptions {
  /** This run's budgets. */
  readonly budget: RunBudget;
  /** The parent run's ledger, for a child run: usage adds to it too, and its budget applies. */
  readonly parent?: UsageLedger;
}

/**
 * The usage and budget of one run (see the file comment). Internal to the engine: handlers see it as
 * {@link RunUsage} through `runtime.usage`.
 */
export class UsageLedger {
  readonly budget: RunBudget;
  readonly #parent: UsageLedger | undefined;
  #totals: UsageTotals = ZERO_USAGE_TOTALS;
  #recorded = false;
  #stop: BudgetStop | undefined;

  constructor(options: UsageLedgerOptions) {
    this.budget = options.budget;
    this.#parent = options.parent;
  }

  /** Whether any usage was recorded or seeded: until then the run writes no `usage.total.*` keys. */
  get recorded(): boolean {
    return this.#recorded;
  }

  /** The first budget refusal of this run (or of a child run), which stops every walk at its next stage boundary. */
  get stop(): BudgetStop | undefined {
    return this.#stop;
  }

  /** The usage so far. */
  totals(): UsageTotals {
    return this.#totals;
  }

  /** Starts from the totals a resumed run recorded (its checkpoint's context). */
  seed(totals: UsageTotals): void {
    this.#totals = totals;
    this.#recorded = true;
  }

  /**
   * Counts an event of this run: an `agent.usage` adds its tokens and cost; other events change nothing. A child
   * run's events reach its parent's ledger through the parent's event hub, not through this call.
   */
  observe(event: PipelineEvent): void {
    if (event.type !== 'agent.usage') return;
    const input = amount(event.inputTokens);
    const output = amount(event.outputTokens);
    const cost = event.costUsd;
    const current = this.#totals;
    this.#totals = {
      inputTokens: current.inputTokens + input,
      outputTokens: current.outputTokens + output,
      cachedInputTokens: current.cachedInputTokens + amount(event.cachedInputTokens),
      reasoningTokens: current.reasoningTokens + amount(event.reasoningTokens),
      totalTokens: current.totalTokens + input + output,
      costUsd: current.costUsd + amount(cost),
      costComplete: current.costComplete && cost !== 'unknown',
    };
    this.#recorded = true;
  }

  /**
   * The budget check before LLM stage `nodeId` (`when: 'stage'`) or before one of its model calls (`'call'`): this
   * run's budget against its usage, then each parent's against theirs. A refusal is kept (the first one) by this
   * ledger and its parents, so that every walk of the run stops at its next stage boundary.
   */
  check(nodeId: string, when: BudgetStop['when']): BudgetStop | undefined {
    const refused = this.#refusal(nodeId, when);
    if (refused !== undefined) {
      for (let ledger: UsageLedger | undefined = this; ledger !== undefined; ledger = ledger.#parent) {
        ledger.#stop ??= refused;
      }
    }
    return refused;
  }

  #refusal(nodeId: string, when: BudgetStop['when']): BudgetStop | undefined {
    const own = budgetStop({ budget: this.budget, totals: this.#totals, nodeId, when });
    if (own !== undefined || this.#parent === undefined) return own;
    return this.#parent.#refusal(nodeId, when);
  }

  /** The view of a stage's handler: `checkBudget` refuses with a {@link BudgetExceededError}. */
  forStage(nodeId: string): RunUsage {
    return {
      totals: () => this.totals(),
      checkBudget: () => {
        const refused = this.check(nodeId, 'call');
        if (refused !== undefined) throw new BudgetExceededError(refused);
      },
    };
  }
}
