/**
 * The context values a tool node writes (docs/architecture.md "Tool nodes"), with the names other runners use
 * for them, and the stdout a dry run pretends a command printed so routing on it can be tried offline.
 */
import type { JsonValue } from '@attractor/engine';
import { evaluateRunCondition } from '@attractor/engine';
import { comparedLiterals, type GraphEdge } from '@attractor/graph';
import { truncateHead, truncateTail } from './truncate-text.js';

/** Characters of stdout kept in the `tool.output` context value. Default of `ToolHandlerOptions.outputMaxChars`. */
export const TOOL_OUTPUT_MAX_CHARS = 10_240;
/** Characters of stderr kept in `tool.stderr` and in the failure reason. */
export const TOOL_STDERR_TAIL_CHARS = 2_048;

/**
 * Context keys other Attractor runners write for a tool node's output, and ours they mirror: the 2389 tracker
 * writes `tool_stdout` / `tool_stderr` (pipelines route on `context.tool_stdout=resume`). Their values are ours
 * with trailing whitespace removed, as that runner stores them, so `printf 'ok\n'` matches `tool_stdout=ok`.
 * The tracker has no exit-code key.
 */
export const TOOL_DIALECT_KEYS = {
  tool_stdout: 'tool.output',
  tool_stderr: 'tool.stderr',
} as const satisfies Readonly<Record<string, string>>;

/** What a tool command produced, as {@link toolContextUpdates} reads it. */
export interface ToolRunOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** `undefined` when a signal ended the command or it never started (`tool.exit_code` is then null). */
  readonly exitCode: number | undefined;
}

/** The last non-empty line of `text`, trimmed; `''` when there is none. */
export function lastNonEmptyLine(text: string): string {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line !== '') return line;
    end = start - 1;
  }
  return '';
}

/**
 * The context updates of a tool run: `tool.output` (stdout, cut to `outputMaxChars` with a marker),
 * `tool.exit_code` (a number, or null), `tool.stderr` (the last 2,048 characters) and `tool.last_line` (the last
 * non-empty line of stdout, trimmed: Amplifier and kenotron pipelines route on `context.tool.last_line=PASS`), plus
 * the dialect aliases of {@link TOOL_DIALECT_KEYS} (`tool_stdout`, `tool_stderr`: the same text without trailing
 * whitespace).
 *
 * @param outputMaxChars - characters of stdout kept. Default: {@link TOOL_OUTPUT_MAX_CHARS}.
 */
export function toolContextUpdates(
  run: ToolRunOutput,
  outputMaxChars = TOOL_OUTPUT_MAX_CHARS,
): Record<string, JsonValue> {
  const output = truncateHead(run.stdout, outputMaxChars);
  const stderr = truncateTail(run.stderr, TOOL_STDERR_TAIL_CHARS);
  return {
    'tool.output': output,
    'tool.exit_code': run.exitCode ?? null,
    'tool.stderr': stderr,
    'tool.last_line': lastNonEmptyLine(run.stdout),
    tool_stdout: output.trimEnd(),
    tool_stderr: stderr.trimEnd(),
  };
}

/**
 * The condition keys that read a tool node's stdout: `tool.output`, `tool_stdout` or `tool.last_line`, with or
 * without `context.` (a one-line output is its own last line).
 */
const STDOUT_KEYS: readonly string[] = [
  'tool.output',
  'context.tool.output',
  'tool_stdout',
  'context.tool_stdout',
  'tool.last_line',
  'context.tool.last_line',
];

/** Options of {@link routableToolOutput}. */
export interface RoutableToolOutputOptions {
  /** The tool node's outgoing edges, in declaration order. */
  readonly edges: readonly GraphEdge[];
  /** The run context before the node's updates. */
  readonly context: { get(key: string): unknown };
  /** The node's (simulated) outcome status. */
  readonly outcome: string;
}

/**
 * The stdout a dry run gives a tool node whose command it does not run. When its edges route only on its output
 * (every edge eligible for a successful run compares `tool.output` or `tool_stdout`, with `=` or `!=`), the first
 * value that one of its conditions compares the output with (declaration order) and that makes an edge eligible:
 * `context.tool_stdout=0` / `context.tool_stdout!=0` gives `0`. Otherwise, and when no such value makes an edge
 * eligible, `''`. Without it a dry run would stop at a node routing on `=resume` / `=fresh` only with "no eligible
 * edge" (fail-closed routing), or take the `!=` branch of a pair the README says it does not.
 */
export function routableToolOutput(options: RoutableToolOutputOptions): string {
  const { edges, context, outcome } = options;
  const eligible = (edge: GraphEdge, stdout: string) => {
    if (edge.condition.trim() === '') return outcome !== 'fail' && outcome !== 'retry';
    const updates = toolContextUpdates({ stdout, stderr: '', exitCode: outcome === 'fail' ? 1 : 0 });
    const view = { get: (key: string) => (Object.hasOwn(updates, key) ? updates[key] : context.get(key)) };
    try {
      return evaluateRunCondition({ condition: edge.condition, context: view, outcome });
    } catch {
      // An invalid condition is a lint error; it routes nowhere here.
      return false;
    }
  };
  const comparedValues = (edge: GraphEdge) => comparedLiterals(edge.condition, STDOUT_KEYS);
  // An edge that does not look at the output and is eligible anyway: the output does not decide the route.
  const otherRoute = edges.some((edge) => comparedValues(edge).length === 0 && eligible(edge, ''));
  if (otherRoute) return '';
  for (const edge of edges) {
    for (const candidate of comparedValues(edge)) {
      if (edges.some((target) => eligible(target, candidate))) return candidate;
    }
  }
  return '';
}
