/**
 * The timeline: a waterfall of every stage attempt over the run's time, one row per attempt — parallel branches
 * side by side in time, retries as rows of their own. A row is a button that opens the stage.
 */
import { formatDuration } from './format.js';
import { branchPathLabel, type RunState } from './run-state.js';

/** Most rows drawn; later attempts are summarised. */
const MAX_ROWS = 400;

/** The waterfall of `state`'s attempts; `now` (ms) ends the bars of running attempts. */
export function Timeline({
  state,
  now,
  onSelect,
}: {
  state: RunState;
  now: number;
  onSelect: (nodeId: string) => void;
}) {
  const attempts = state.attempts;
  if (attempts.length === 0) return <p class="muted">No stage has started yet.</p>;
  const start = state.startedAtMs ?? attempts[0]!.startedAtMs;
  const end = Math.max(
    state.endedAtMs ?? now,
    ...attempts.map((attempt) => attempt.endedAtMs ?? attempt.startedAtMs),
  );
  const span = Math.max(1, end - start);
  const rows = attempts.slice(0, MAX_ROWS);
  return (
    <div class="timeline" id="timeline">
      <div class="timeline-scale" aria-hidden="true">
        <span>0</span>
        <span>{formatDuration(span / 2)}</span>
        <span>{formatDuration(span)}</span>
      </div>
      <ol class="timeline-rows">
        {rows.map((attempt) => {
          const left = ((attempt.startedAtMs - start) / span) * 100;
          const width = Math.max(0.4, (((attempt.endedAtMs ?? now) - attempt.startedAtMs) / span) * 100);
          const label = `${attempt.nodeId}${attempt.branchPath.length > 0 ? ` (${branchPathLabel(attempt.branchPath, '›')})` : ''}${attempt.visit > 1 ? ` visit ${attempt.visit}` : ''}${attempt.attempt > 1 ? ` attempt ${attempt.attempt}` : ''}${attempt.resumed > 0 ? ' resumed' : ''}`;
          const duration = (attempt.endedAtMs ?? now) - attempt.startedAtMs;
          return (
            <li key={attempt.key} class="timeline-row">
              <button
                type="button"
                class="timeline-label"
                onClick={() => onSelect(attempt.nodeId)}
                title={label}
                aria-label={`${label}: ${attempt.status}, ${formatDuration(duration)}`}
              >
                {label}
              </button>
              <span class="timeline-track" aria-hidden="true">
                <span
                  class={`timeline-bar status-${attempt.status}`}
                  style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                />
              </span>
              <span class="timeline-duration small">{formatDuration(duration)}</span>
            </li>
          );
        })}
      </ol>
      {attempts.length > MAX_ROWS && (
        <p class="muted small">{attempts.length - MAX_ROWS} later attempts are not drawn.</p>
      )}
    </div>
  );
}
