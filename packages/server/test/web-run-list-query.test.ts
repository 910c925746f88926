/**
 * The runs page's URL query (web/src/run-list-query.ts): filters, search and sort survive a round trip through the
 * query string, defaults stay out of the URL, unknown values fall back, and runs sort with ties broken by start.
 */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../web/src/api.js';
import {
  compareRuns,
  matchesRunListQuery,
  parseRunListQuery,
  runListHref,
} from '../web/src/run-list-query.js';

const run = (fields: Partial<RunSummary> & Pick<RunSummary, 'id' | 'startedAt'>): RunSummary => ({
  graphName: 'g',
  goal: '',
  state: 'success',
  live: false,
  resumable: false,
  pendingQuestions: 0,
  ...fields,
});

describe('runs page query', () => {
  it('shows archived runs only with archived=include', () => {
    const archived = run({ id: 'a', startedAt: '2026-01-01T00:00:00.000Z', archived: true });
    const kept = run({ id: 'k', startedAt: '2026-01-01T00:00:00.000Z' });
    const hidden = parseRunListQuery('');
    const shown = parseRunListQuery('?archived=include');
    expect([archived, kept].filter((one) => matchesRunListQuery(one, hidden)).map((one) => one.id)).toEqual([
      'k',
    ]);
    expect([archived, kept].filter((one) => matchesRunListQuery(one, shown)).map((one) => one.id)).toEqual([
      'a',
      'k',
    ]);
  });

  it('round-trips filters, search and sort, and leaves defaults out', () => {
    const query = parseRunListQuery(
      '?status=fail&graph=deploy%20it&q=time+out&archived=include&sort=cost&dir=asc',
    );
    expect(query).toEqual({
      status: 'fail',
      graph: 'deploy it',
      q: 'time out',
      archived: true,
      sort: 'cost',
      dir: 'asc',
    });
    expect(runListHref(query)).toBe(
      '/?status=fail&graph=deploy+it&q=time+out&archived=include&sort=cost&dir=asc',
    );
    expect(parseRunListQuery('?q=x').archived).toBe(false);
    expect(parseRunListQuery(runListHref(query).slice(1))).toEqual(query);
    expect(runListHref(parseRunListQuery(''))).toBe('/');
    expect(parseRunListQuery('?sort=tokens&dir=up')).toMatchObject({ sort: 'start', dir: 'desc' });
  });

  it('sorts missing durations and costs first, ties by start', () => {
    const a = run({ id: 'a', startedAt: '2025-01-01T00:00:01Z', endedAt: '2025-01-01T00:00:03Z' });
    const b = run({ id: 'b', startedAt: '2025-01-01T00:00:02Z' });
    const live = run({ id: 'c', startedAt: '2025-01-01T00:00:00Z', live: true });
    const now = Date.parse('2025-01-01T00:00:10Z');
    const byDuration = [a, b, live].sort((x, y) => compareRuns(x, y, 'duration', now)).map((one) => one.id);
    expect(byDuration).toEqual(['b', 'a', 'c']);
    const cheap = run({
      id: 'd',
      startedAt: '2025-01-01T00:00:05Z',
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.2 },
    });
    const same = run({
      id: 'e',
      startedAt: '2025-01-01T00:00:04Z',
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.2 },
    });
    expect([cheap, a, same].sort((x, y) => compareRuns(x, y, 'cost', now)).map((one) => one.id)).toEqual([
      'a',
      'e',
      'd',
    ]);
  });
});
