/**
 * The message of a stage's commit (README "Workspaces"): a subject naming the node, visit, attempt and outcome, and
 * the same as git trailers, so `git log --format='%(trailers:key=Attractor-Node)'` finds a stage's commits.
 */
import type { StageCommitRequest } from '@attractor/engine';

/** The trailer keys of a stage commit. */
export const STAGE_TRAILERS = {
  run: 'Attractor-Run',
  node: 'Attractor-Node',
  stage: 'Attractor-Stage',
  visit: 'Attractor-Visit',
  attempt: 'Attractor-Attempt',
  outcome: 'Attractor-Outcome',
} as const;

/**
 * The commit message of a completed stage, e.g. `attractor: implement (visit 2, attempt 1) success` and the
 * trailers `Attractor-Run`, `Attractor-Node`, `Attractor-Stage` (a parallel branch's stage path), `Attractor-Visit`,
 * `Attractor-Attempt`, `Attractor-Outcome`.
 */
export function stageCommitMessage(request: StageCommitRequest): string {
  return [
    `attractor: ${request.nodeId} (visit ${request.visit}, attempt ${request.attempt}) ${request.status}`,
    '',
    `${STAGE_TRAILERS.run}: ${request.runId}`,
    `${STAGE_TRAILERS.node}: ${request.nodeId}`,
    ...(request.stagePath === request.nodeId ? [] : [`${STAGE_TRAILERS.stage}: ${request.stagePath}`]),
    `${STAGE_TRAILERS.visit}: ${request.visit}`,
    `${STAGE_TRAILERS.attempt}: ${request.attempt}`,
    `${STAGE_TRAILERS.outcome}: ${request.status}`,
    '',
  ].join('\n');
}
