/**
 * Condition evaluation for handlers (spec §10): plug-in packages may not import `@attractor/condition`
 * (CONTRIBUTING.md "Dependency direction"), so the engine offers the evaluator it routes with, e.g. for
 * `manager.stop_condition`.
 */
import { evaluateCondition } from '@attractor/condition';

/** Options of {@link evaluateRunCondition}. */
export interface EvaluateRunConditionOptions {
  /** The condition text, e.g. `context.stack.child.status=completed && outcome=success`. */
  readonly condition: string;
  /** Read access to the context (the engine's `Context`, or any `{ get(key) }` overlay). */
  readonly context: { get(key: string): unknown };
  /** The value of `outcome` in the condition. Default: `''`. */
  readonly outcome?: string;
  /** The value of `preferred_label` in the condition. Default: `''`. */
  readonly preferredLabel?: string;
}

/**
 * Evaluates a condition expression (spec §10.3–10.5) exactly as edge selection does: clauses joined by `&&`,
 * `context.x` falls back to `x`, missing keys are `''`, an empty condition holds.
 *
 * @throws {ConditionSyntaxError} (from `@attractor/condition`) when the condition does not parse; `validate()`
 *   reports such conditions before a run.
 * @example
 * evaluateRunCondition({ condition: 'context.stack.child.status=completed', context }); // true or false
 */
export function evaluateRunCondition(options: EvaluateRunConditionOptions): boolean {
  return evaluateCondition(options.condition, {
    outcome: options.outcome ?? '',
    preferredLabel: options.preferredLabel ?? '',
    context: options.context,
  });
}
