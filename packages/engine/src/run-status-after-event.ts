/**
 * The run index's rule for what a run's events say of its status, one event at a time: the file catalog folds it
 * over the end of `events.jsonl`, the PostgreSQL store over each batch of appended events. Whether a runner still
 * holds the run (its lock) is for the caller to add. See docs/architecture.md "Run directory" and
 * `RunCatalog.listRuns`.
 */

/**
 * A run's status as its events say it. `waiting`: an interview is open (a runner asks a human gate's question).
 * `suspended`: a worker stopped the run at a human gate to wait for the answer (`pipeline.suspended`) and holds no
 * lock; the run index shows it as `waiting` too. `success|fail|cancelled`: the run's last leg ended so.
 */
export type RunEventStatus = 'running' | 'waiting' | 'suspended' | 'success' | 'fail' | 'cancelled';

/** What {@link runStatusAfterEvent} keeps between events. */
export interface RunEventState {
  /** Undefined while no event seen said anything of the status. */
  readonly status?: RunEventStatus;
  /** `interview.started` events without their `interview.completed|timeout` since the last `pipeline.started`. */
  readonly openInterviews: number;
}

const NOTHING_SAID: RunEventState = { openInterviews: 0 };

const STATUS_OF_END: Readonly<Record<string, RunEventStatus>> = {
  'pipeline.completed': 'success',
  'pipeline.failed': 'fail',
  'pipeline.cancelled': 'cancelled',
  'pipeline.suspended': 'suspended',
};

/**
 * The state after `event`, given the state before it (undefined before the first event). Pure; returns `before`
 * itself when the event changes nothing. Takes any parsed JSON line (only `type` is read), so a torn or foreign line
 * changes nothing.
 *
 * - `pipeline.started` (a run or a resume): `running`, no interview open.
 * - `interview.started`: `waiting`; `interview.completed|timeout`: `running` once no interview is left open.
 * - `pipeline.completed|failed|cancelled`: `success|fail|cancelled`; `pipeline.suspended`: `suspended`.
 * - Every other event: no change.
 */
export function runStatusAfterEvent(
  before: RunEventState | undefined,
  event: { readonly type?: unknown },
): RunEventState {
  const state = before ?? NOTHING_SAID;
  switch (event.type) {
    case 'pipeline.started':
      return { status: 'running', openInterviews: 0 };
    case 'interview.started':
      return { status: 'waiting', openInterviews: state.openInterviews + 1 };
    case 'interview.completed':
    case 'interview.timeout': {
      const openInterviews = Math.max(0, state.openInterviews - 1);
      return { status: openInterviews > 0 ? 'waiting' : 'running', openInterviews };
    }
    default: {
      const status = typeof event.type === 'string' ? STATUS_OF_END[event.type] : undefined;
      return status === undefined ? state : { status, openInterviews: state.openInterviews };
    }
  }
}
