/**
 * `@attractor/engine/internal`: implementation details that other packages of this repository share with the engine
 * (process groups of commands, the atomic file write, the `status.json` mapping, the graph fingerprint, the run lock's
 * file names, the duration of a run's leg, the run index's status rule, a run's id in its location, a fork point's `node[@visit]`). Not part of the
 * public API: names and signatures change without a major version. Use the `.` entry.
 */
export { DEFAULT_STALE_LOCK_MS, RUN_LOCK_DIRECTORY, RUN_LOCK_FILE } from './file-run-lock.js';
export { parseForkPoint } from './fork-run.js';
export { graphFingerprint } from './graph-fingerprint.js';
export { findNonJson } from './json-value.js';
export {
  createProcessGroupRecorder,
  type EndOrphanedProcessGroupsOptions,
  endOrphanedProcessGroups,
  PROCESS_GROUPS_FILE,
  type ProcessGroupRecorderOptions,
  type ProcessGroupsFile,
} from './process-group-file.js';
export { killProcessGroup, processGroupAlive, trackProcessGroup } from './process-groups.js';
export { type LegDurationOptions, legDurationMs } from './run-duration.js';
export {
  type RunEventState,
  type RunEventStatus,
  runStatusAfterEvent,
} from './run-status-after-event.js';
export { bestByWeightThenLexical } from './select-edge.js';
export { outcomeToStatusFile, statusFileToOutcome } from './status-file.js';
export { runIdOfLocation } from './store-names.js';
export { writeFileAtomicSync } from './write-file-atomic-sync.js';
