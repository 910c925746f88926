import prettyMilliseconds from 'pretty-ms';
import type { Colors } from '../colors.js';
import type { RunState, StageState } from '../inspect/summarize-run.js';

/** A duration for people: `850ms`, `1.2s`, `2m 5s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return prettyMilliseconds(ms, { secondsDecimalDigits: ms < 10_000 ? 1 : 0, unitCount: 2 });
}

/** A token count: `950`, `12.3k`, `1.2M`. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${Number((count / 1000).toFixed(1))}k`;
  return `${Number((count / 1_000_000).toFixed(1))}M`;
}

/**
 * The icon of a stage state: ✔ success, ◐ partial success, ✖ fail, ↻ retry, ○ skipped, … running, ? waiting at a
 * gate, ■ cancelled, ‼ interrupted.
 */
export function stateIcon(state: StageState, colors: Colors): string {
  switch (state) {
    case 'success':
      return colors.green('✔');
    case 'partial_success':
      return colors.yellow('◐');
    case 'fail':
      return colors.red('✖');
    case 'retry':
      return colors.yellow('↻');
    case 'skipped':
      return colors.dim('○');
    case 'running':
      return colors.cyan('…');
    case 'waiting':
      return colors.yellow('?');
    case 'cancelled':
      return colors.magenta('■');
    case 'interrupted':
      return colors.magenta('‼');
    default:
      // A custom outcome word (docs/architecture.md "Outcomes") counts as success.
      return colors.green('✔');
  }
}

/** A stage's or a run's state coloured for display. */
export function stateText(state: StageState | RunState, colors: Colors): string {
  switch (state) {
    case 'success':
      return colors.green(state);
    case 'partial_success':
    case 'retry':
      return colors.yellow(state);
    case 'fail':
    case 'dead':
      return colors.red(state);
    case 'skipped':
      return colors.dim(state);
    case 'running':
      return colors.cyan(state);
    case 'waiting':
      return colors.yellow(state);
    case 'cancelled':
    case 'interrupted':
      return colors.magenta(state);
    default:
      return colors.green(state);
  }
}

/** The longest first line {@link firstLine} shows, in characters: past it the line is cut with an ellipsis. */
export const FIRST_LINE_MAX_CHARS = 2000;

/**
 * The first non-blank line of `text`, trimmed (cut at `maxChars` with an ellipsis; default
 * {@link FIRST_LINE_MAX_CHARS}), and how many non-blank lines follow it. A failure reason is shown this way: its
 * first line says what failed, whole; the full text is in the run directory (`events.jsonl`, `status.json`).
 */
export function firstLine(
  text: string,
  maxChars = FIRST_LINE_MAX_CHARS,
): { readonly line: string; readonly moreLines: number } {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const first = lines[0] ?? '';
  const line = first.length <= maxChars ? first : `${first.slice(0, Math.max(0, maxChars - 1))}…`;
  return { line, moreLines: Math.max(0, lines.length - 1) };
}

/** Shortens text to `max` characters on one line, with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A cost in USD for people: `$0.0412`, `$1.23`; with `unknown` true a `+ unknown` suffix says some calls had no
 * price (`$0.0412 + unknown`, or `unknown` alone when nothing was priced).
 */
export function formatCost(costUsd: number, unknown: boolean): string {
  if (unknown && costUsd === 0) return 'unknown';
  const amount = `$${costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toFixed(4)}`;
  return unknown ? `${amount} + unknown` : amount;
}
