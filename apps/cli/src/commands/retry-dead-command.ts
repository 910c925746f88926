/**
 * `attractor retry-dead <run>… | --all`: queues dead-lettered runs again (runs whose job failed more times than the
 * workers' retry limit allows: `attractor runs --status dead` lists them with the reason). A worker resumes each from
 * its checkpoint, with a fresh count of retries.
 */
import type { RunQueue } from '@attractor/worker';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../errors/cli-error.js';
import { connectQueueOrExplain, queueHintOption, requireQueueUrl } from '../shared/shared-locations.js';

/** Options of `attractor retry-dead`. */
export interface RetryDeadCliOptions {
  readonly all?: boolean;
  readonly queue?: string;
}

/**
 * Queues the named dead runs (or, with `--all`, every dead run) again. Exit code 0 when every one was queued, 1 when
 * one was unknown or not dead-lettered (the others are queued all the same).
 * @throws {CliError} without a queue, or with neither run ids nor `--all` (or both).
 */
export async function retryDeadCommand(options: {
  readonly runs: readonly string[];
  readonly options: RetryDeadCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io, runs } = options;
  const all = options.options.all === true;
  if (all === runs.length > 0) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: all
        ? '--all retries every dead run: leave out the run ids, or --all.'
        : `Name the dead runs to retry, or pass --all (\`${cliCommand(io.env)} runs --status dead\` lists them).`,
    });
  }
  const queueUrl = requireQueueUrl(options.options.queue, io, '`attractor retry-dead`');
  const queue = await connectQueueOrExplain(queueUrl);
  try {
    const targets = all ? (await queue.listRunStates({ dead: true })).map((run) => run.runId) : runs;
    if (targets.length === 0) {
      io.stderr.write('no dead runs\n');
      return 0;
    }
    let refused = 0;
    for (const runId of targets) {
      if (!(await retry(queue, runId, io, options.options.queue))) refused += 1;
    }
    return refused === 0 ? 0 : 1;
  } finally {
    await queue.close();
  }
}

/** Queues one dead run again; false (and says why) when the queue has no such run or it is not dead-lettered. */
async function retry(queue: RunQueue, runId: string, io: CliIo, queueOption: string | undefined) {
  const run = await queue.readRun(runId);
  if (run === undefined) {
    io.stderr.write(`no run ${runId} in the queue\n`);
    return false;
  }
  if (run.deadAt === undefined || run.state !== 'fail') {
    const hint =
      run.state === 'fail' || run.state === 'cancelled'
        ? `; to run it again from its checkpoint: ${cliCommand(io.env)} resume ${runId}${queueHintOption(queueOption, io)}`
        : '';
    io.stderr.write(`run ${runId} is ${run.state}, not a dead letter${hint}\n`);
    return false;
  }
  await queue.resumeRun({ runId });
  io.stdout.write(
    `run ${runId} is queued again (dead since ${run.deadAt}: ${run.error ?? 'no reason recorded'}); a worker resumes it from its checkpoint\n`,
  );
  return true;
}
