/**
 * The `parallel.fan_in` handler (spec §4.9, DESIGN.md "Parallel results").
 */
import type { CodergenBackend, Handler, JsonValue, Outcome } from '@attractor/engine';
import { buildStagePrompt } from './codergen-handler.js';
import { createCodergenRequest, errorToFailOutcome } from './codergen-request.js';
import { type ParallelBranchResult, readParallelResults } from './parallel-results.js';
import { isSuccessfulCandidate, selectBestCandidate } from './select-best-candidate.js';
import { writeStageFile } from './stage-files.js';

/** Options of {@link createFanInHandler}. */
export interface FanInHandlerOptions {
  /** The backend for LLM-based selection. Default: `runtime.backend`. */
  readonly backend?: CodergenBackend;
}

/**
 * The judge prompt for LLM-based selection: the node's prompt, then every candidate (id, status, response,
 * notes, failure), then the instruction to put the chosen id on the first line.
 */
export function buildJudgePrompt(instruction: string, results: readonly ParallelBranchResult[]): string {
  const candidates = results.map((result) =>
    [
      `## ${result.branch}`,
      `status: ${result.status}`,
      ...(result.last_response === '' ? [] : [`response: ${result.last_response}`]),
      ...(result.notes === '' ? [] : [`notes: ${result.notes}`]),
      ...(result.failure_reason === '' ? [] : [`failure: ${result.failure_reason}`]),
    ].join('\n'),
  );
  return `${instruction}\n\n# Candidates\n\n${candidates.join('\n\n')}\n\nReply with the id of the best candidate (one of: ${results.map((result) => result.branch).join(', ')}) on the first line, then your reasons.`;
}

/**
 * The candidate a judge's answer names: its first line equal to an id (ignoring case, quotes, `#`, `*`), else the
 * id mentioned first anywhere in the text. Undefined when no id appears.
 */
export function findJudgedCandidate(
  response: string,
  results: readonly ParallelBranchResult[],
): ParallelBranchResult | undefined {
  const firstLine = (response.trim().split('\n')[0] ?? '').replace(/[`'"*#:.\s]/g, '').toLowerCase();
  const exact = results.find((result) => result.branch.toLowerCase() === firstLine);
  if (exact !== undefined) return exact;
  const lower = response.toLowerCase();
  let best: { result: ParallelBranchResult; at: number } | undefined;
  for (const result of results) {
    const at = lower.indexOf(result.branch.toLowerCase());
    if (at >= 0 && (best === undefined || at < best.at)) best = { result, at };
  }
  return best?.result;
}

/**
 * Creates the `parallel.fan_in` handler (spec §4.9).
 *
 * Reads `parallel.results` (FAIL `No parallel results to evaluate` when missing or empty) and selects the best
 * candidate: with a `prompt` and a backend, an LLM judge (`prompt.md` / `response.md` in the stage directory; the
 * answer's first line names the branch id; an answer naming no id falls back to the heuristic); otherwise the
 * heuristic of spec §4.9 (status rank, then `score`, then id). The outcome applies the winner's
 * `context_updates` to the parent context and sets `parallel.fan_in.best_id` and `parallel.fan_in.best_outcome`.
 * When every candidate failed the outcome is FAIL (spec §4.9); otherwise SUCCESS.
 */
export function createFanInHandler(options: FanInHandlerOptions = {}): Handler {
  return {
    async execute(node, context, graph, _logsRoot, runtime) {
      const results = readParallelResults(context.get('parallel.results'));
      if (results === undefined || results.length === 0) {
        return { status: 'fail', failureReason: 'No parallel results to evaluate' };
      }
      if (results.every((result) => !isSuccessfulCandidate(result.status))) {
        const reasons = results.map(
          (result) => `${result.branch}: ${result.failure_reason || result.status}`,
        );
        return {
          status: 'fail',
          failureReason: `all ${results.length} parallel branches failed (${reasons.join('; ')})`,
          contextUpdates: { 'parallel.fan_in.best_id': '', 'parallel.fan_in.best_outcome': 'fail' },
        };
      }
      let best: ParallelBranchResult | undefined;
      let how = 'heuristic';
      const backend = options.backend ?? runtime.backend;
      if (node.prompt.trim() !== '' && backend !== undefined) {
        const prompt = buildJudgePrompt(buildStagePrompt(node, graph), results);
        await writeStageFile(runtime.stageDir, 'prompt.md', prompt);
        let answer: string | Outcome;
        try {
          answer = await backend.run(createCodergenRequest({ node, graph, prompt, context, runtime }));
        } catch (error) {
          return errorToFailOutcome(error);
        }
        const text =
          typeof answer === 'string'
            ? answer
            : [answer.preferredLabel, ...(answer.suggestedNextIds ?? []), answer.notes]
                .filter(Boolean)
                .join('\n');
        await writeStageFile(runtime.stageDir, 'response.md', text);
        best = findJudgedCandidate(text, results);
        how = best === undefined ? 'heuristic (the judge named no candidate)' : 'LLM judge';
      }
      best ??= selectBestCandidate(results)!;
      const contextUpdates: Record<string, JsonValue> = {
        ...best.context_updates,
        'parallel.fan_in.best_id': best.branch,
        'parallel.fan_in.best_outcome': best.status,
      };
      return {
        status: 'success',
        contextUpdates,
        notes: `Selected best candidate: ${best.branch} (${best.status}, by ${how})`,
      };
    },
  };
}
