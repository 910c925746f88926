/** Display helpers of the web UI: durations, times, token counts, money. */

/** `850 ms`, `12.4 s`, `3 min 05 s`, `2 h 04 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

const TIME_PARTS = {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
} as const satisfies Intl.DateTimeFormatOptions;

/**
 * The two formats of {@link formatTime}, made once: `toLocaleString` builds a new formatter per call, tens of
 * milliseconds over a timeline of a few hundred stages.
 */
let timeFormats:
  | { readonly thisYear: Intl.DateTimeFormat; readonly otherYear: Intl.DateTimeFormat }
  | undefined;

/** A local date and time, short: `Dec 2, 01:35:23` (with the year when it is not this year's). */
export function formatTime(iso: string | number): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '–';
  timeFormats ??= {
    thisYear: new Intl.DateTimeFormat(undefined, TIME_PARTS),
    otherYear: new Intl.DateTimeFormat(undefined, { ...TIME_PARTS, year: 'numeric' }),
  };
  const format =
    date.getFullYear() === new Date().getFullYear() ? timeFormats.thisYear : timeFormats.otherYear;
  return format.format(date);
}

/** `1,234` tokens. */
export function formatTokens(count: number): string {
  return count.toLocaleString('en-US');
}

/** `$0.0123`, `$1.20`. */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined) return '–';
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}
