/**
 * The context values a tool node writes (DESIGN.md "Tool nodes"), with the names other runners use for them, and
 * the stdout a dry run pretends a command printed so routing on it can be tried offline.
 */
import type { JsonValue } from '@attractor/engine';
import { evaluateRunCondition } from '@attractor/engine';
import type { GraphEdge } from '@attractor/graph';
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

/**
 * The context updates of a tool run: `tool.output` (stdout, cut to `outputMaxChars` with a marker),
 * `tool.exit_code` (a number, or null) and `tool.stderr` (the last 2,048 characters), plus the dialect aliases of
 * {@link TOOL_DIALECT_KEYS} (`tool_stdout`, `tool_stderr`: the same text without trailing whitespace).
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
    tool_stdout: output.trimEnd(),
    tool_stderr: stderr.trimEnd(),
  };
}

/** `tool.output = <literal>` or `tool_stdout = <literal>` (with or without `context.`), quoted or bare. */
const STDOUT_CLAUSE =
  /(?:^|&&)\s*(?:context\.)?(?:tool\.output|tool_stdout)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s&"]+))/g;

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
 * The stdout a dry run gives a tool node whose command it does not run: `''`, unless no outgoing edge is eligible
 * with an empty output (edges on `context.tool_stdout=resume` / `=fresh` only); then the first value that one of
 * its conditions compares the output with (`tool.output` or `tool_stdout`, declaration order) and that makes an
 * edge eligible. Without it a dry run stops at such a node with "no eligible edge" (fail-closed routing).
 */
export function routableToolOutput(options: RoutableToolOutputOptions): string {
  const { edges, context, outcome } = options;
  const accepts = (stdout: string) => {
    const updates = toolContextUpdates({ stdout, stderr: '', exitCode: outcome === 'fail' ? 1 : 0 });
    const view = { get: (key: string) => (Object.hasOwn(updates, key) ? updates[key] : context.get(key)) };
    return edges.some((edge) => {
      if (edge.condition.trim() === '') return outcome !== 'fail' && outcome !== 'retry';
      try {
        return evaluateRunCondition({ condition: edge.condition, context: view, outcome });
      } catch {
        // An invalid condition is a lint error; it routes nowhere here.
        return false;
      }
    });
  };
  if (edges.length === 0 || accepts('')) return '';
  for (const edge of edges) {
    for (const match of edge.condition.matchAll(STDOUT_CLAUSE)) {
      const candidate = match[1] === undefined ? match[2]! : unquote(match[1]);
      if (accepts(candidate)) return candidate;
    }
  }
  return '';
}

function unquote(body: string): string {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}
