/**
 * The run's events as a table (the latest {@link SHOWN} of them), details wrapped inside the card. Event types this
 * UI does not know are shown like any other.
 */
import type { PipelineEvent } from '@attractor/engine';

const SHOWN = 300;

/** The event log. */
export function EventLog({ events }: { events: readonly PipelineEvent[] }) {
  const shown = events.slice(-SHOWN).reverse();
  return (
    <div class="table-wrap event-log-wrap">
      <table class="event-log" id="event-log">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Node</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((event, index) => (
            <tr key={`${event.runId}:${event.seq}:${index}`} data-type={event.type}>
              <td>{event.seq}</td>
              <td class="nowrap">{new Date(event.timestamp).toLocaleTimeString()}</td>
              <td>
                <code>{event.type}</code>
              </td>
              <td>{'nodeId' in event ? String(event.nodeId) : ''}</td>
              <td class="details">{describe(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {events.length > SHOWN && (
        <p class="muted small">
          Showing the latest {SHOWN} of {events.length} events.
        </p>
      )}
    </div>
  );
}

function describe(event: PipelineEvent): string {
  const branch = event.branchPath === undefined ? '' : `[${event.branchPath.join('›')}] `;
  switch (event.type) {
    case 'stage.completed':
      return `${branch}${event.status}${event.failureReason ? ` — ${event.failureReason}` : ''}`;
    case 'stage.failed':
      return `${branch}${event.error}${event.willRetry ? ' (will retry)' : ''}`;
    case 'pipeline.failed':
      return event.error;
    case 'pipeline.cancelled':
      return event.reason;
    case 'pipeline.suspended':
      return `waiting at ${event.stage}: ${event.question.text}${event.deadlineAt === undefined ? '' : ` (default after ${event.deadlineAt})`}`;
    case 'parallel.branch.completed':
      return `${event.branch}: ${event.status}`;
    case 'parallel.branch.started':
      return `branch ${event.branch}`;
    case 'interview.started':
      return event.question.text;
    case 'interview.completed':
      return event.answer.value;
    case 'agent.text':
      return `${branch}${event.text.slice(0, 200)}`;
    case 'agent.tool_call.started':
      return `${branch}${event.toolName}`;
    case 'stage.log':
      return `${branch}${event.message}`;
    default:
      return branch;
  }
}
