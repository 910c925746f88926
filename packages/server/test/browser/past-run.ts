/**
 * Past run directories for the runs-list tests: a real run's manifest and checkpoint copied under another name,
 * graph, goal and start time, with an event log of a start, optional events (usage, parallel blocks, …) and an end
 * — only the files the list reads, so hundreds of them stay light.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The manifest and checkpoint of a real run, to copy. */
export interface RunSeed {
  readonly manifest: Record<string, unknown>;
  readonly checkpoint: Record<string, unknown>;
}

/** Reads the seed files of run directory `runDir`. */
export async function readRunSeed(runDir: string): Promise<RunSeed> {
  return {
    manifest: JSON.parse(await readFile(join(runDir, 'manifest.json'), 'utf8')) as Record<string, unknown>,
    checkpoint: JSON.parse(await readFile(join(runDir, 'checkpoint.json'), 'utf8')) as Record<
      string,
      unknown
    >,
  };
}

/** One past run to write. */
export interface PastRun {
  /** The run id (directory name). */
  readonly name: string;
  readonly graph: string;
  readonly goal: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  /** How it ended; default `success`. */
  readonly state?: 'success' | 'fail';
  /** Events between the start and the end (without `seq`, `timestamp`, `runId`: added). */
  readonly events?: readonly Record<string, unknown>[];
  /** Extra manifest fields (e.g. `forked_from`). */
  readonly manifest?: Record<string, unknown>;
}

/** Writes `run` as a run directory under `runsDir`, from `seed`. */
export async function writePastRun(runsDir: string, seed: RunSeed, run: PastRun): Promise<void> {
  const dir = join(runsDir, run.name);
  const startedAt = run.startedAt.toISOString();
  const endedAt = new Date(run.startedAt.getTime() + run.durationMs).toISOString();
  const failed = run.state === 'fail';
  await mkdir(dir);
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify({
      ...seed.manifest,
      ...run.manifest,
      run_id: run.name,
      graph_name: run.graph,
      goal: run.goal,
      started_at: startedAt,
    }),
  );
  await writeFile(
    join(dir, 'checkpoint.json'),
    JSON.stringify({
      ...seed.checkpoint,
      ...(failed ? { state: 'fail', failure_reason: `${run.goal} broke` } : {}),
    }),
  );
  const events = [
    {
      type: 'pipeline.started',
      name: run.graph,
      goal: run.goal,
      logsRoot: run.name,
      resumed: false,
      startNodeId: 'start',
    },
    ...(run.events ?? []),
    failed
      ? { type: 'pipeline.failed', error: `${run.goal} broke`, durationMs: run.durationMs }
      : { type: 'pipeline.completed', durationMs: run.durationMs, artifactCount: 0, completedCount: 3 },
  ].map((event, index, all) => ({
    ...event,
    seq: index + 1,
    timestamp: index === all.length - 1 ? endedAt : startedAt,
    runId: run.name,
  }));
  await writeFile(join(dir, 'events.jsonl'), events.map((event) => `${JSON.stringify(event)}\n`).join(''));
}
