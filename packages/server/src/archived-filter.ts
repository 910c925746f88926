/**
 * `GET /pipelines?archived=`: which runs the list shows by their archive mark ({@link RunSummary.archived}).
 */
import { ApiError } from './errors/api-error.js';
import type { RunSummary } from './run-summary.js';

/** The values of `?archived=`: `exclude` (the default: archived runs left out), `include` (all), `only`. */
export const ARCHIVED_FILTERS = ['exclude', 'include', 'only'] as const;

/** One of {@link ARCHIVED_FILTERS}. */
export type ArchivedFilter = (typeof ARCHIVED_FILTERS)[number];

/**
 * The filter a `?archived=` query value asks for; `exclude` when it is absent or empty.
 * @throws {ApiError} `INVALID_REQUEST` (400) for another value, naming the allowed ones.
 */
export function parseArchivedFilter(value: string | undefined): ArchivedFilter {
  if (value === undefined || value === '') return 'exclude';
  if ((ARCHIVED_FILTERS as readonly string[]).includes(value)) return value as ArchivedFilter;
  throw new ApiError({
    status: 400,
    code: 'INVALID_REQUEST',
    message: `Invalid ?archived=${JSON.stringify(value)}: use one of ${ARCHIVED_FILTERS.join(', ')} (default: exclude).`,
  });
}

/** The runs of `runs` that `filter` lets through, in their order. Pure. */
export function filterArchived(runs: readonly RunSummary[], filter: ArchivedFilter): RunSummary[] {
  if (filter === 'include') return [...runs];
  const wantArchived = filter === 'only';
  return runs.filter((run) => (run.archived === true) === wantArchived);
}
