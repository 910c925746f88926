/**
 * The phases of an analysis, from a change to its published diagnostics, as User Timing measures
 * (`performance.measure`) of the language server's main thread: a host or a benchmark observes them with a
 * `PerformanceObserver` (entry type `measure`, names starting with {@link ANALYSIS_PHASE_PREFIX}). The worker's phases
 * are timed in the worker and recorded on the main thread's timeline when its reply arrives. Each measure is cleared
 * from the timeline as soon as it is recorded (observers still receive it), so a long session keeps none.
 */

/** The prefix of every measure's name: `attractor-lsp:<phase>`. */
export const ANALYSIS_PHASE_PREFIX = 'attractor-lsp:';

/**
 * The phases of one analysis, in order: `to-worker` (the job's transfer, from its posting by the main thread right
 * after the change), `debounce` (in the worker, until the job starts: the debounce delay, and an earlier analysis
 * still running), `project` (the project's plug-ins looked up), `lint` (parse, transforms and lint rules, spec §9.1;
 * its measure's `detail.cpu` is the worker thread's CPU milliseconds), `convert` (to LSP diagnostics, encoded as JSON),
 * `from-worker` (the reply's transfer, until the main thread has decoded it), `publish` (encoding and writing the
 * diagnostics; absent when a newer text came meanwhile). A job replaced by a newer text before it started has none.
 */
export type AnalysisPhaseName =
  | 'to-worker'
  | 'debounce'
  | 'project'
  | 'lint'
  | 'convert'
  | 'from-worker'
  | 'publish';

/** A phase timed in the worker: its start and end in milliseconds since the Unix epoch (fractional). */
export interface TimedPhase {
  readonly name: AnalysisPhaseName;
  readonly start: number;
  readonly end: number;
  /** The CPU time its thread spent in it, in milliseconds, when known (Node.js 23.9 and later). */
  readonly cpu?: number;
}

/** This thread's CPU time in milliseconds (user and system), `undefined` before Node.js 23.9. */
export function threadCpuNow(): number | undefined {
  if (typeof process.threadCpuUsage !== 'function') return undefined;
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** The current time in milliseconds since the Unix epoch, fractional, comparable between threads. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Records a phase of the analysis of `version` of `uri` on this thread's timeline (times in epoch milliseconds, see
 * {@link epochNow}); the measure's `detail` is `{ uri, version, cpu? }` (`cpu`: CPU milliseconds of the phase).
 */
export function recordPhase(
  phase: TimedPhase,
  document: { readonly uri: string; readonly version: number },
): void {
  const name = `${ANALYSIS_PHASE_PREFIX}${phase.name}`;
  performance.measure(name, {
    start: phase.start - performance.timeOrigin,
    end: phase.end - performance.timeOrigin,
    detail: {
      uri: document.uri,
      version: document.version,
      ...(phase.cpu === undefined ? {} : { cpu: phase.cpu }),
    },
  });
  performance.clearMeasures(name);
}
