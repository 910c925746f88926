/**
 * The JSON log lines of what a worker does with its jobs (`WorkerEvent`), beside those of its runs' events
 * (log-run-event.ts); each names the run (`runId`).
 */
import type { WorkerEvent } from '@attractor/worker';
import type { JsonLog } from './json-log.js';

/** Writes the log line of a worker event. */
export function logWorkerEvent(log: JsonLog, event: WorkerEvent): void {
  switch (event.type) {
    case 'run.started':
      log.info({ runId: event.runId, resumed: event.resumed, trigger: event.trigger }, 'job started');
      return;
    case 'run.suspended':
      log.info({ runId: event.runId, node: event.stage }, 'job suspended at a human gate; the slot is free');
      return;
    case 'run.finished':
      (event.status === 'success' ? log.info.bind(log) : log.warn.bind(log))(
        { runId: event.runId, status: event.status, reason: event.failureReason },
        'job finished',
      );
      return;
    case 'run.requeued':
      log.info({ runId: event.runId, reason: event.reason }, 'job handed back to the queue');
      return;
    case 'run.skipped':
      log.info({ runId: event.runId, reason: event.reason }, 'job skipped');
      return;
    case 'warning':
      log.warn({ runId: event.runId }, event.message);
      return;
  }
}
