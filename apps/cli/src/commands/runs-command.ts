/**
 * `attractor runs [--status S] [--graph G] [--limit N] [--page P] [--json]`: the runs of the shared store and queue
 * (neither set: `./.attractor/runs`), newest first, a page at a time.
 */
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { oneLine } from '../display/format-values.js';
import { CliError } from '../errors/cli-error.js';
import {
  addWorkers,
  listSharedRunsPage,
  SHARED_RUN_STATUSES,
  type SharedRunEntry,
  type SharedRunStatus,
} from '../shared/list-shared-runs.js';
import {
  LOCAL_RUNS,
  openQueueReaderOrExplain,
  openRunCatalog,
  queueHintOption,
  queueUrlOf,
  storeHintOption,
  storeUrlOf,
} from '../shared/shared-locations.js';
import { DEFAULT_PAGE_SIZE, type RunsCliOptions } from './runs-options.js';

/**
 * Prints one page of the shared runs (see `listSharedRuns`): a line per run (a dead-lettered run with the reason), or
 * with `--json` one JSON array of the entries; on stderr, which runs of how many were shown and how to see the next
 * page.
 * @throws {CliError} when `--status` names no status, or `dead` without a queue.
 */
export async function runsCommand(options: {
  readonly options: RunsCliOptions;
  readonly io: CliIo;
}): Promise<number> {
  const { io } = options;
  const filter = options.options;
  const status = checkStatus(filter.status);
  const queueUrl = queueUrlOf(filter.queue, io);
  // Neither a store nor a queue: the runs this directory's CLI runs left (as `purge` and `inspect` read them).
  const storeUrl = storeUrlOf(filter.store, io) ?? (queueUrl === undefined ? LOCAL_RUNS : undefined);
  if (status === 'dead' && queueUrl === undefined) {
    throw new CliError({
      code: 'CLI_USAGE',
      message:
        'Dead letters are kept by the run queue: pass --queue <url> or set ATTRACTOR_QUEUE_URL to list runs with --status dead.',
    });
  }
  // Both connect at once; when one cannot, the other is closed and the queue's error is reported first.
  const [openedQueue, openedCatalog] = await Promise.allSettled([
    queueUrl === undefined ? undefined : openQueueReaderOrExplain(queueUrl),
    storeUrl === undefined ? undefined : openRunCatalog(storeUrl, io),
  ]);
  if (openedQueue.status === 'rejected' || openedCatalog.status === 'rejected') {
    if (openedQueue.status === 'fulfilled') await openedQueue.value?.close();
    if (openedCatalog.status === 'fulfilled') await openedCatalog.value?.close();
    throw openedQueue.status === 'rejected'
      ? openedQueue.reason
      : (openedCatalog as PromiseRejectedResult).reason;
  }
  const queue = openedQueue.value;
  const catalog = openedCatalog.value;
  try {
    const limit = filter.limit ?? DEFAULT_PAGE_SIZE;
    const page = filter.page ?? 1;
    const first = limit === 0 ? 0 : (page - 1) * limit;
    const listed = await listSharedRunsPage({
      ...(catalog === undefined ? {} : { catalog }),
      ...(queue === undefined ? {} : { queue }),
      ...(filter.graph === undefined ? {} : { graph: filter.graph }),
      ...(status === undefined ? {} : { status }),
      offset: first,
      limit,
    });
    const shown = await addWorkers(listed.entries, queue);
    if (filter.json === true) io.stdout.write(`${JSON.stringify(shown)}\n`);
    else for (const entry of shown) io.stdout.write(`${formatEntry(entry)}\n`);
    io.stderr.write(
      `${describePage({ all: listed.total, first, shown: shown.length, page, limit, filter, io })}\n`,
    );
    return 0;
  } finally {
    await catalog?.close();
    await queue?.close();
  }
}

/** `--status` checked against the statuses a run can have. */
function checkStatus(status: string | undefined): SharedRunStatus | undefined {
  if (status === undefined) return undefined;
  if ((SHARED_RUN_STATUSES as readonly string[]).includes(status)) return status as SharedRunStatus;
  throw new CliError({
    code: 'CLI_USAGE',
    message: `--status ${status} is no run status: use one of ${SHARED_RUN_STATUSES.join(', ')}.`,
  });
}

/** One line of `attractor runs`. */
function formatEntry(entry: SharedRunEntry): string {
  const where =
    entry.waitingAt !== undefined
      ? ` at gate ${entry.waitingAt}`
      : entry.status === 'running' && entry.currentNode !== undefined
        ? ` at ${entry.currentNode}`
        : '';
  // Why the queue failed it (refused by a worker's policy, dead-lettered): `fail` of the run's own log has no reason.
  const reason =
    (entry.status === 'dead' || entry.status === 'fail') && entry.reason !== undefined
      ? ` (${oneLine(entry.reason, 160)})`
      : '';
  return `${entry.runId}  ${entry.status}${where}${reason}  ${entry.graphName}  ${entry.startedAt}`;
}

/** The stderr line after the list: `no runs`, or which of how many, and the next page's option. */
function describePage(options: {
  readonly all: number;
  readonly first: number;
  readonly shown: number;
  readonly page: number;
  readonly limit: number;
  readonly filter: RunsCliOptions;
  readonly io: CliIo;
}): string {
  const { all, first, shown, page, limit, filter, io } = options;
  if (all === 0) return 'no runs';
  if (shown === 0)
    return `no runs on page ${page}: ${all} runs make ${Math.ceil(all / limit)} page(s) of ${limit}`;
  const range = `${all === shown ? `${all} run${all === 1 ? '' : 's'}` : `runs ${first + 1}-${first + shown} of ${all}`}, newest first`;
  if (first + shown >= all) return range;
  return `${range}; next page: ${cliCommand(io.env)} runs${sameListing(filter, io)} --page ${page + 1} (or --limit 0 for all)`;
}

/**
 * The options that list the same runs again, as a command to paste: the filters, the page size and the store and
 * queue (as `storeHintOption` and `queueHintOption` spell them: nothing when the environment names them).
 */
function sameListing(filter: RunsCliOptions, io: CliIo): string {
  const quoted = (value: string) =>
    /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
  return [
    filter.store === undefined ? '' : storeHintOption(filter.store, io),
    filter.queue === undefined ? '' : queueHintOption(filter.queue, io),
    filter.status === undefined ? '' : ` --status ${quoted(filter.status)}`,
    filter.graph === undefined ? '' : ` --graph ${quoted(filter.graph)}`,
    filter.limit === undefined ? '' : ` --limit ${filter.limit}`,
    filter.json === true ? ' --json' : '',
  ].join('');
}
