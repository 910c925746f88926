/**
 * Which events of a run the JSON log records, and with which fields: the run's start and end, each stage's start,
 * completion, failure and retry, the gates it waits at, and the stages' warnings; every line names the run
 * (`runId`) and, for a stage, the node (`node`, and `branchPath` inside a parallel branch or child run).
 */
import type { PipelineEvent } from '@attractor/engine';
import type { JsonLog } from './json-log.js';

/** Writes the log line of `event`, if it has one. */
export function logRunEvent(log: JsonLog, event: PipelineEvent): void {
  const run = {
    runId: event.runId,
    ...(event.branchPath === undefined ? {} : { branchPath: event.branchPath.join('/') }),
  };
  switch (event.type) {
    case 'pipeline.started':
      log.info(
        { ...run, pipeline: event.name, resumed: event.resumed, node: event.startNodeId },
        'run started',
      );
      return;
    case 'pipeline.completed':
      log.info({ ...run, durationMs: event.durationMs }, 'run completed');
      return;
    case 'pipeline.failed':
      log.error(
        { ...run, node: event.nodeId, reason: event.error, durationMs: event.durationMs },
        'run failed',
      );
      return;
    case 'pipeline.cancelled':
      log.warn({ ...run, reason: event.reason, durationMs: event.durationMs }, 'run cancelled');
      return;
    case 'pipeline.suspended':
      log.info({ ...run, node: event.stage, deadlineAt: event.deadlineAt }, 'run waits at a human gate');
      return;
    case 'stage.started':
      log.info(
        {
          ...run,
          node: event.nodeId,
          handlerType: event.handlerType,
          visit: event.visit,
          attempt: event.attempt,
        },
        'stage started',
      );
      return;
    case 'stage.completed':
      log.info(
        {
          ...run,
          node: event.nodeId,
          status: event.status,
          attempt: event.attempt,
          durationMs: event.durationMs,
        },
        'stage completed',
      );
      return;
    case 'stage.failed':
      log.warn(
        {
          ...run,
          node: event.nodeId,
          attempt: event.attempt,
          willRetry: event.willRetry,
          reason: event.error,
        },
        'stage attempt failed',
      );
      return;
    case 'stage.retrying':
      log.info(
        { ...run, node: event.nodeId, attempt: event.attempt, delayMs: event.delayMs },
        'stage retrying',
      );
      return;
    case 'interview.started':
      log.info({ ...run, node: event.stage }, 'human gate asked');
      return;
    case 'stage.log':
      if (event.level === 'warn') log.warn({ ...run, node: event.nodeId }, event.message);
      else if (event.level === 'error') log.error({ ...run, node: event.nodeId }, event.message);
      return;
    default:
      return;
  }
}
