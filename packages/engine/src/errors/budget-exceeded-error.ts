import { AttractorError, isErrorOf } from '@attractor/errors';
import type { BudgetStop } from '../check-budget.js';

/**
 * Thrown by `runtime.usage.checkBudget()` (and so by a backend, before a model call) once the run spent its budget
 * (`max_budget_usd` or `max_tokens`). Not retryable: the run stops at the end of the running stage, and
 * `attractor resume <run dir> --max-budget-usd <more>` (or `--max-tokens`) continues it there. The message names the
 * budget, the amount spent and the stage.
 */
export class BudgetExceededError extends AttractorError<'BUDGET_EXCEEDED'> {
  override readonly name = 'BudgetExceededError';
  /** Which budget, its limit, what was spent and where. */
  readonly stop: BudgetStop;
  /** Never retried: a retry would be refused the same way. */
  readonly retryable = false;

  constructor(stop: BudgetStop) {
    super({ code: 'BUDGET_EXCEEDED', message: stop.reason });
    this.stop = stop;
  }

  /** True for a `BudgetExceededError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(BudgetExceededError);
}
