import type { JsonValue, PipelineEvent, RunStatus } from '@attractor/engine';

/** What the final summary of `run` / `resume` needs. */
export interface RunFinish {
  readonly status: RunStatus;
  readonly failureReason?: string;
  /** Wall time of this invocation, in milliseconds. */
  readonly durationMs: number;
  /** The run directory as the user would type it. */
  readonly logsRoot: string;
  /** The command that resumes the run (shown after a failure or an interruption). */
  readonly resumeCommand: string;
  /** After a failure: what resuming does (`createResumeNote`), printed under the resume command. */
  readonly resumeNote?: string;
  /** Node executions of the whole run, in order. */
  readonly completedNodes: readonly string[];
  /**
   * Set by `resume`: this invocation's stages and the whole run's totals over all its legs, counted like `inspect`
   * (top-level stage completions; the sum of the legs' durations, engine `runDurationMs`).
   */
  readonly resumed?: {
    /** Stages completed by this invocation. */
    readonly stagesThisTime: number;
    /** Stages completed by the run, all legs. */
    readonly stagesInRun: number;
    /** Wall time of all the run's legs, in milliseconds. */
    readonly runDurationMs: number;
  };
  /**
   * Set by `fork`: the stages this run executed and its whole route, which starts with the stages it inherited
   * completed from the source run (they ran there).
   */
  readonly forked?: {
    /** Stages completed by this run. */
    readonly stagesThisTime: number;
    /** Stages of the route: the inherited ones and this run's. */
    readonly stagesInRoute: number;
  };
  /** LLM usage of the whole run (`usage.total.*` of the context), when any LLM stage ran. */
  readonly usage?: RunUsage;
  /** The run's result (`output.json`, README "Typed data"), when the graph declares `outputs` and the run succeeded. */
  readonly output?: Readonly<Record<string, JsonValue>>;
}

/** LLM usage of a run, as the backends record it in the context (`usage.total.*`). */
export interface RunUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  /** USD of the stages with a known price. */
  readonly costUsd: number;
  /** False when a stage's model had no price. */
  readonly costComplete: boolean;
}

/**
 * How a run is shown: live on a terminal, one line per event otherwise, JSON lines with `--json`.
 * All implementations write only through the streams they were given.
 */
export interface RunDisplay {
  /** Called with every pipeline event, in order. */
  onEvent(event: PipelineEvent): void;
  /** Stops live updates and clears the live area (before a human is asked a question). */
  pause(): void;
  /** Restarts live updates after {@link pause}. */
  resume(): void;
  /** Prints a message between events (e.g. "Stopping…" on Ctrl-C); on stderr with `--json`. */
  notice(text: string): void;
  /** Prints the final summary and releases the terminal. */
  finish(finish: RunFinish): void;
}

/** How much a display prints. */
export type Verbosity = 'quiet' | 'normal' | 'verbose';
