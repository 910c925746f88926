/**
 * Runs small real pipelines (`runPipeline` with the built-in handlers, so the real codergen handler) with an
 * agent-CLI backend, and reads the process table, for the agent tests.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, CodergenBackend, PipelineEvent, PipelineTelemetry } from '@attractor/engine';
import { tempDir as engineTempDir, type RunDotResult, runDot as runEngineDot } from '@attractor/engine/test';
import { createDefaultRegistry } from '@attractor/handlers';
import { expect } from 'vitest';
import type { RecordedRequest, ScriptedServer, ScriptedTurn } from '../src/test/index.js';

/** A fresh temp directory, removed after the test (`tempDir` of `@attractor/engine/test`). */
export function tempDir(prefix: string): string {
  return engineTempDir(`agent-cli-${prefix}-`);
}

/** The result of {@link runDot}. */
export type DotRun = RunDotResult;

/** Runs a DOT pipeline with the built-in handlers in a fresh workdir; `logsRoot` is `{workdir}/.attractor/run` unless given. */
export function runDot(options: {
  readonly dot: string;
  readonly backend: CodergenBackend;
  readonly workdir?: string;
  readonly logsRoot?: string;
  /** The engine's clock (node timeouts). Default: the system clock. */
  readonly clock?: Clock;
  readonly telemetry?: PipelineTelemetry;
}): Promise<DotRun> {
  const workdir = options.workdir ?? tempDir('work');
  return runEngineDot(options.dot, {
    registry: createDefaultRegistry(),
    backend: options.backend,
    workdir,
    logsRoot: options.logsRoot ?? join(workdir, '.attractor', 'run'),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
  });
}

/** Reads a file of a stage directory. */
export function readStageFile(run: DotRun, nodeId: string, name: string): Promise<string> {
  return readFile(join(run.logsRoot, nodeId, name), 'utf8');
}

/** The command lines of every process on the machine that contain `needle` (from /proc). */
export async function processesMatching(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (commandLine.includes(needle)) found.push(`${entry}: ${commandLine}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Waits until no process matches `needle` or `timeoutMs` passes; returns what is still there. */
export async function waitForNoProcess(needle: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let left = await processesMatching(needle);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await processesMatching(needle);
  }
  return left;
}

/** Events of one type, typed. */
export function eventsOf<TType extends PipelineEvent['type']>(
  events: readonly PipelineEvent[],
  type: TType,
): Extract<PipelineEvent, { type: TType }>[] {
  return events.filter((event): event is Extract<PipelineEvent, { type: TType }> => event.type === type);
}

/**
 * Polls the process table until stopped; `seen()` tells whether a process matching `needle` ever showed up, and
 * `appeared` settles when one does (it never rejects: a test that waits for it ends at its own timeout).
 */
export function watchForProcess(needle: string): {
  seen(): boolean;
  readonly appeared: Promise<void>;
  stop(): void;
} {
  let seen = false;
  let stopped = false;
  let markSeen: () => void = () => undefined;
  const appeared = new Promise<void>((resolve) => {
    markSeen = resolve;
  });
  const poll = async () => {
    while (!stopped && !seen) {
      if ((await processesMatching(needle)).length > 0) {
        seen = true;
        markSeen();
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };
  void poll();
  return {
    seen: () => seen,
    appeared,
    stop: () => {
      stopped = true;
    },
  };
}

/**
 * Runs a pipeline whose stage `review` has an `output_schema` (`verdict: string, score: integer`) mapped by `out_map`
 * to `review_verdict` and `review_score`, with a retry per extra attempt, against `server` answering each attempt
 * (session) with `attempts` (default: text JSON that does not match, `"score": "high"`, then on the retry
 * `{"verdict": "reject", "score": 2}`). The first attempt must fail for the handler's reason naming the problem and
 * the last one give `{"verdict": "reject", "score": 2}`: checks every failure retryable, the values mapped and
 * `response.md`; returns the run, the stage's `stage.failed` events and its model requests.
 */
export async function runRetriedStructuredReview(options: {
  readonly server: ScriptedServer;
  readonly backend: CodergenBackend;
  readonly attempts?: readonly (readonly ScriptedTurn[])[];
}): Promise<{
  readonly run: DotRun;
  readonly failed: readonly Extract<PipelineEvent, { type: 'stage.failed' }>[];
  readonly requests: readonly RecordedRequest[];
}> {
  const attempts = options.attempts ?? [
    [{ text: '{"verdict": "approve", "score": "high"}' }],
    [{ text: '{"verdict": "reject", "score": 2}' }],
  ];
  options.server.script({ structured: { attempts } });
  const run = await runDot({
    backend: options.backend,
    dot: `digraph G { start [shape=Mdiamond] exit [shape=Msquare]
      review [prompt="Review it [[scenario:structured]]", output_schema="verdict: string, score: integer",
              out_map="verdict -> review_verdict, score -> review_score", max_retries=${attempts.length - 1}]
      start -> review -> exit }`,
  });
  expect(run.result.status).toBe('success');
  const failed = eventsOf(run.events, 'stage.failed');
  expect(failed.map((event) => [event.nodeId, event.willRetry])).toEqual(
    attempts.slice(1).map(() => ['review', true]),
  );
  expect(failed[0]?.error).toBe(
    'the structured output of "review" (the reply, response.md) does not match its output_schema: "score" must be an integer, got "high"',
  );
  expect(run.result.context.get('review_verdict')).toBe('reject');
  expect(run.result.context.get('review_score')).toBe(2);
  expect(JSON.parse(await readStageFile(run, 'review', 'response.md'))).toEqual({
    verdict: 'reject',
    score: 2,
  });
  const requests = options.server.requests.filter((request) => request.scenario === 'structured');
  return { run, failed, requests };
}

/**
 * Checks a successful run of two stages on one thread (`full` fidelity), the second resuming the first's session,
 * whose stage `review` answered `{"verdict": "approve", "score": 9}` for an `output_schema` without `out_map`.
 */
export function expectResumedReview(run: DotRun): void {
  expect(run.result.status).toBe('success');
  expect(eventsOf(run.events, 'agent.session.started').map((event) => event.resumed)).toEqual([false, true]);
  expect(run.result.context.get('review.verdict')).toBe('approve');
  expect(run.result.context.get('review.score')).toBe(9);
}
