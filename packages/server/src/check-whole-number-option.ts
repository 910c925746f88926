/**
 * The start-time check of the server's whole-number options (`heartbeatMs`, `endedRunsKept`): a value that is not a
 * finite integer within its range is refused before anything starts, rather than sending heartbeats in a busy loop or
 * looping forever when a run ends.
 */
import { ServerOptionError } from './errors/server-option-error.js';

/** The longest delay a Node.js timer takes, in milliseconds; a longer one fires after 1 ms instead. */
export const MAX_TIMER_MS = 2_147_483_647;

/** What {@link checkWholeNumberOption} checks. */
export interface WholeNumberOption {
  /** The option's name, as the embedder spells it (`heartbeatMs`). */
  readonly option: string;
  /** The value given; `undefined` (the default applies) passes. */
  readonly value: number | undefined;
  /** Smallest allowed value. */
  readonly min: number;
  /** Largest allowed value. Default: none. */
  readonly max?: number;
  /** The unit in the message (`milliseconds`). Default: none. */
  readonly unit?: string;
  /** The default, named in the message. */
  readonly defaultValue: number;
}

/**
 * Refuses `value` unless it is an integer from `min` to `max`.
 *
 * @throws {ServerOptionError} naming the option, the value and the allowed range.
 */
export function checkWholeNumberOption(check: WholeNumberOption): void {
  const { option, value, min, max } = check;
  if (value === undefined) return;
  if (Number.isInteger(value) && value >= min && (max === undefined || value <= max)) return;
  const range = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
  const what = check.unit === undefined ? 'a whole number' : `a whole number of ${check.unit}`;
  throw new ServerOptionError({
    option,
    value,
    message: `The server option ${option} is ${String(value)}, which is not allowed: use ${what} ${range} (default: ${check.defaultValue}).`,
  });
}
