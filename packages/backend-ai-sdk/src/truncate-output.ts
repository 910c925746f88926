/**
 * Tool output truncation of coding-agent-loop-spec §5.1–5.3: characters first (head/tail or tail), then lines.
 * The model sees the truncated text; events and the transcript keep the full output.
 */

/** How {@link truncateOutput} cuts: keep both ends (`head_tail`) or only the end (`tail`). */
export type TruncationMode = 'head_tail' | 'tail';

/** Per-tool limits: characters (always applied first) and lines (applied after, when set). */
export interface ToolOutputLimit {
  /** Maximum characters sent to the model. */
  readonly maxChars: number;
  readonly mode: TruncationMode;
  /** Maximum lines sent to the model after character truncation; undefined for none. */
  readonly maxLines?: number;
}

/**
 * The default limits of coding-agent-loop-spec §5.2 and §5.3 (read_file 50,000 chars head/tail; shell 30,000
 * head/tail and 256 lines; grep 20,000 tail and 200 lines; glob 20,000 tail and 500 lines; edit_file 10,000 tail;
 * write_file 1,000 tail). Tools not listed (such as `report_outcome`) use `edit_file`'s limit.
 */
export const DEFAULT_TOOL_OUTPUT_LIMITS = {
  read_file: { maxChars: 50_000, mode: 'head_tail' },
  shell: { maxChars: 30_000, mode: 'head_tail', maxLines: 256 },
  grep: { maxChars: 20_000, mode: 'tail', maxLines: 200 },
  glob: { maxChars: 20_000, mode: 'tail', maxLines: 500 },
  edit_file: { maxChars: 10_000, mode: 'tail' },
  write_file: { maxChars: 1_000, mode: 'tail' },
} as const satisfies Record<string, ToolOutputLimit>;

/**
 * Character truncation of coding-agent-loop-spec §5.1. Output within `maxChars` is returned as is. `head_tail`
 * keeps the first and last `maxChars / 2` characters around a warning naming how many were removed; `tail` keeps
 * the last `maxChars` after a warning.
 */
export function truncateOutput(output: string, maxChars: number, mode: TruncationMode): string {
  if (output.length <= maxChars) return output;
  const removed = output.length - maxChars;
  if (mode === 'head_tail') {
    const half = Math.floor(maxChars / 2);
    return (
      output.slice(0, half) +
      `\n\n[WARNING: Tool output was truncated. ${removed} characters were removed from the middle. ` +
      'The full output is available in the event stream. ' +
      'If you need to see specific parts, re-run the tool with more targeted parameters.]\n\n' +
      output.slice(output.length - half)
    );
  }
  return (
    `[WARNING: Tool output was truncated. First ${removed} characters were removed. ` +
    'The full output is available in the event stream.]\n\n' +
    output.slice(output.length - maxChars)
  );
}

/**
 * Line truncation of coding-agent-loop-spec §5.3: keeps the first `maxLines / 2` and the remaining last lines
 * around a `[... N lines omitted ...]` marker.
 */
export function truncateLines(output: string, maxLines: number): string {
  const lines = output.split('\n');
  if (lines.length <= maxLines) return output;
  const headCount = Math.floor(maxLines / 2);
  const tailCount = maxLines - headCount;
  const omitted = lines.length - headCount - tailCount;
  return `${lines.slice(0, headCount).join('\n')}\n[... ${omitted} lines omitted ...]\n${lines.slice(lines.length - tailCount).join('\n')}`;
}

/**
 * The full pipeline of coding-agent-loop-spec §5.3 for one tool: character truncation first (it bounds size even
 * for a file of two 10 MB lines), then line truncation where the tool has a line limit.
 *
 * @param limits Overrides per tool name, merged over {@link DEFAULT_TOOL_OUTPUT_LIMITS}.
 */
export function truncateToolOutput(
  output: string,
  toolName: string,
  limits: Readonly<Record<string, ToolOutputLimit>> = {},
): string {
  const defaults: Readonly<Record<string, ToolOutputLimit>> = DEFAULT_TOOL_OUTPUT_LIMITS;
  const limit: ToolOutputLimit =
    limits[toolName] ?? defaults[toolName] ?? DEFAULT_TOOL_OUTPUT_LIMITS.edit_file;
  const byChars = truncateOutput(output, limit.maxChars, limit.mode);
  return limit.maxLines === undefined ? byChars : truncateLines(byChars, limit.maxLines);
}
