/**
 * The `parallel.fan_in` handler (spec §4.9, docs/architecture.md "Parallel results").
 */
import {
  type CodergenBackend,
  type Context,
  createSecretMasker,
  type DeclaredHandler,
  defineHandler,
  type HandlerRuntime,
  type JsonValue,
  type MergeBranchStateResult,
  mergeBranchState,
  type Outcome,
  type SecretMasker,
} from '@attractor/engine';
import { type Graph, type GraphNode, nodeAttribute, SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import { buildStagePrompt, LAST_RESPONSE_MAX_CHARS } from './codergen-handler.js';
import { createCodergenRequest, errorToFailOutcome } from './codergen-request.js';
import { type BranchFilesMerge, type JoinMerge, mergeBranchFiles } from './merge-branch-files.js';
import { type ParallelBranchResult, readParallelResults } from './parallel-results.js';
import { isSuccessfulCandidate, selectBestCandidate } from './select-best-candidate.js';

/** Options of {@link createFanInHandler}. */
export interface FanInHandlerOptions {
  /** The backend for LLM-based selection. Default: `runtime.backend`. */
  readonly backend?: CodergenBackend;
}

/** The prompt variable a fan-in prompt uses for every branch's full output, rendered by {@link renderBranchOutputs}. */
export const BRANCH_OUTPUTS_VARIABLE = '$parallel.outputs';

/**
 * Every branch's work, readably: per branch a `## <id> (<status>)` heading, then its full output (the
 * `output`, else the artifact `output_artifact` names, else `last_response`), its notes and its failure.
 * `outputs` holds the full outputs by branch id (see {@link loadBranchOutputs}).
 */
export function renderBranchOutputs(
  results: readonly ParallelBranchResult[],
  outputs: ReadonlyMap<string, string>,
): string {
  return results
    .map((result) => {
      const output = outputs.get(result.branch) ?? (result.output || result.last_response);
      return [
        `## ${result.branch} (${result.status})`,
        '',
        output === '' ? '(no output)' : output,
        ...(result.notes === '' ? [] : ['', `notes: ${result.notes}`]),
        ...(result.failure_reason === '' ? [] : ['', `failure: ${result.failure_reason}`]),
      ].join('\n');
    })
    .join('\n\n');
}

/** The full output of every branch by id, reading back outputs kept as artifacts. */
async function loadBranchOutputs(
  results: readonly ParallelBranchResult[],
  artifacts: { retrieve(id: string): Promise<JsonValue> },
): Promise<Map<string, string>> {
  const outputs = new Map<string, string>();
  for (const result of results) {
    if (result.output_artifact !== undefined) {
      const data = await artifacts.retrieve(result.output_artifact).catch(() => undefined);
      if (typeof data === 'string') outputs.set(result.branch, data);
    } else if (result.output !== '') {
      outputs.set(result.branch, result.output);
    }
  }
  return outputs;
}

/** Options of {@link buildJudgePrompt} and {@link buildMergePrompt}. */
export interface FanInPromptOptions {
  /** The fan-in node's prompt (`$goal` expanded); {@link BRANCH_OUTPUTS_VARIABLE} in it is replaced. */
  readonly instruction: string;
  readonly results: readonly ParallelBranchResult[];
  /** Full outputs by branch id (read back from artifacts); otherwise each result's `output` / `last_response`. */
  readonly outputs?: ReadonlyMap<string, string>;
}

/**
 * The judge prompt for LLM-based selection: the node's prompt with every candidate's full output (where it says
 * {@link BRANCH_OUTPUTS_VARIABLE}, else appended under `# Candidates`), then the instruction to put the chosen id
 * on the first line.
 */
export function buildJudgePrompt(options: FanInPromptOptions): string {
  const ids = options.results.map((result) => result.branch).join(', ');
  return `${withBranchOutputs(options, 'Candidates')}\n\nReply with the id of the best candidate (one of: ${ids}) on the first line, then your reasons.`;
}

/**
 * The merge prompt (`fan_in_mode=merge`): the node's prompt with every branch's full output (where it says
 * {@link BRANCH_OUTPUTS_VARIABLE}, else appended under `# Branches`), and the instruction that the reply is the
 * merged result.
 */
export function buildMergePrompt(options: FanInPromptOptions): string {
  return `${withBranchOutputs(options, 'Branches')}\n\nMerge the branches' work into one result. Your whole reply becomes the merged output.`;
}

function withBranchOutputs(options: FanInPromptOptions, heading: string): string {
  const rendered = renderBranchOutputs(options.results, options.outputs ?? new Map());
  return options.instruction.includes(BRANCH_OUTPUTS_VARIABLE)
    ? options.instruction.replaceAll(BRANCH_OUTPUTS_VARIABLE, rendered)
    : `${options.instruction}\n\n# ${heading}\n\n${rendered}`;
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
 * Every branch's full output is reachable (docs/architecture.md "Parallel results"):
 * `parallel.results[i].output` (or the artifact `output_artifact` names, for outputs over 100,000
 * characters), and `$parallel.outputs` in the fan-in's prompt, which renders each branch's id, status and
 * full output. `fan_in_mode` (lint `fan_in_mode`) chooses: `merge` sends the prompt and every output to the
 * LLM and its reply becomes the merged output (`parallel.fan_in.merged`, `response.md`, `last_response`;
 * every successful branch's `context_updates` applied in edge order); `pick` (the default, spec §4.9) selects
 * one branch as follows.
 *
 * Reads `parallel.results` (FAIL `No parallel results to evaluate` when missing or empty; empty after a `foreach`,
 * whose failed and skipped items are not candidates, it is SUCCESS with nothing selected) and selects the best
 * candidate: with a `prompt` and a backend, an LLM judge (`prompt.md` / `response.md` in the stage directory; the
 * answer's first line names the branch id; an answer naming no id falls back to the heuristic); otherwise the
 * heuristic of spec §4.9 (status rank, then `score`, then id). The outcome applies the winner's
 * `context_updates` to the parent context and sets `parallel.fan_in.best_id` and `parallel.fan_in.best_outcome`.
 * When every candidate failed the outcome is FAIL (spec §4.9); otherwise SUCCESS.
 *
 * In a run with a workspace (README "Workspaces", `runtime.workspace`) each branch worked in a worktree of its own,
 * and `join_merge` says how their files come together: `git` (the default) merges every successful branch's commit
 * with git before the selection (`parallel.fan_in.merged_branches`); `pick` takes the selected branch's files after
 * it (with `fan_in_mode=merge`, which selects none, it merges like `git`); `none` takes no files. A merge conflict is
 * a FAIL (not retried) naming the paths and branches, with `parallel.fan_in.conflict_paths` and
 * `parallel.fan_in.conflict_branch`; the conflicted files stay in the workspace for a resolver stage.
 */
export function createFanInHandler(options: FanInHandlerOptions = {}): DeclaredHandler {
  return defineHandler({
    type: 'parallel.fan_in',
    ...SPEC_HANDLER_DECLARATIONS['parallel.fan_in'],
    async execute({ node, context, graph, runtime }) {
      const results = readParallelResults(context.get('parallel.results'));
      const joinMerge: JoinMerge = nodeAttribute(node, 'join_merge') ?? 'git';
      const workspace = runtime.workspace;
      const picking = joinMerge === 'pick' && nodeAttribute(node, 'fan_in_mode') !== 'merge';
      let files: BranchFilesMerge | undefined;
      if (workspace !== undefined && results !== undefined && joinMerge !== 'none' && !picking) {
        files = await mergeBranchFiles({ workspace, nodeId: node.id, branches: results });
        if (files.kind === 'conflict') return files.outcome;
      }
      // Declared state (README "Typed data"): every successful branch's writes merge by rule, in branch order.
      const state = joinState({ graph, context, results });
      if (state !== undefined && !state.ok) {
        return {
          status: 'fail',
          failureReason: `parallel branches ${state.branches.map((branch) => `"${branch}"`).join(' and ')} both wrote the undeclared context key "${state.key}" with different values: declare how they merge in the graph's state (e.g. state="${state.key}: replace" or "${state.key}: append"), or let one branch write it`,
          retryable: false,
        };
      }
      const combined = await combineResults({ node, context, graph, runtime, results, options });
      const outcome =
        state === undefined || combined.status === 'fail'
          ? combined
          : { ...combined, contextUpdates: { ...combined.contextUpdates, ...state.updates } };
      if (workspace !== undefined && picking && outcome.status !== 'fail') {
        const bestId = outcome.contextUpdates?.['parallel.fan_in.best_id'];
        const best = results?.find((result) => result.branch === bestId);
        files = await mergeBranchFiles({
          workspace,
          nodeId: node.id,
          branches: best === undefined ? [] : [best],
        });
        if (files.kind === 'conflict') return files.outcome;
      }
      if (files?.kind !== 'merged' || files.notes === undefined) return outcome;
      return {
        ...outcome,
        notes: outcome.notes === undefined ? files.notes : `${outcome.notes}; ${files.notes}`,
        contextUpdates: { ...outcome.contextUpdates, ...files.contextUpdates },
      };
    },
  });
}

/**
 * The merge of the successful branches' context writes over the graph's declared `state` (`mergeBranchState`), or
 * undefined when the graph declares none (then the selected branch's updates apply, as before).
 */
function joinState(input: {
  readonly graph: Graph;
  readonly context: Context;
  readonly results: readonly ParallelBranchResult[] | undefined;
}): MergeBranchStateResult | undefined {
  const rules = input.graph.settings.state;
  if (Object.keys(rules).length === 0 || input.results === undefined) return undefined;
  return mergeBranchState({
    rules,
    base: input.context.snapshot(),
    branches: input.results
      .filter((result) => isSuccessfulCandidate(result.status))
      .map((result) => ({ branch: result.branch, updates: result.context_updates })),
  });
}

/** The fan-in's selection or LLM merge of the branches' results (spec §4.9), once their files are merged. */
async function combineResults(input: {
  readonly node: GraphNode;
  readonly context: Context;
  readonly graph: Graph;
  readonly runtime: HandlerRuntime;
  readonly results: ParallelBranchResult[] | undefined;
  readonly options: FanInHandlerOptions;
}): Promise<Outcome> {
  const { node, context, graph, runtime, results, options } = input;
  if (results !== undefined && results.length === 0 && context.get('foreach.node') !== undefined) {
    // A foreach over an empty list, or whose every item failed under on_item_error=collect or skip: nothing to pick.
    return {
      status: 'success',
      notes: `No item of foreach "${String(context.get('foreach.node'))}" to combine`,
      contextUpdates: { 'parallel.fan_in.best_id': '', 'parallel.fan_in.best_outcome': 'success' },
    };
  }
  if (results === undefined || results.length === 0) {
    return { status: 'fail', failureReason: 'No parallel results to evaluate' };
  }
  if (results.every((result) => !isSuccessfulCandidate(result.status))) {
    const reasons = results.map((result) => `${result.branch}: ${result.failure_reason || result.status}`);
    return {
      status: 'fail',
      failureReason: `all ${results.length} parallel branches failed (${reasons.join('; ')})`,
      contextUpdates: { 'parallel.fan_in.best_id': '', 'parallel.fan_in.best_outcome': 'fail' },
    };
  }
  let best: ParallelBranchResult | undefined;
  let how = 'heuristic';
  const backend = options.backend ?? runtime.backend;
  const secrets = runtime.secrets ?? createSecretMasker();
  const outputs = await loadBranchOutputs(results, runtime.artifacts);
  if (nodeAttribute(node, 'fan_in_mode') === 'merge') {
    return merge({ node, graph, context, runtime, results, outputs, backend, secrets });
  }
  if (node.prompt.trim() !== '' && backend !== undefined) {
    const asked = await ask({
      node,
      graph,
      context,
      runtime,
      backend,
      secrets,
      prompt: buildJudgePrompt({ instruction: buildStagePrompt(node, graph, context), results, outputs }),
    });
    if ('failed' in asked) return asked.failed;
    const answer = asked.answer;
    const text =
      typeof answer === 'string'
        ? answer
        : [answer.preferredLabel, ...(answer.suggestedNextIds ?? []), answer.notes]
            .filter(Boolean)
            .join('\n');
    await runtime.stage.writeFile('response.md', secrets.maskText(text));
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
}

interface MergeOptions {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly context: Context;
  readonly runtime: HandlerRuntime;
  readonly results: readonly ParallelBranchResult[];
  readonly outputs: ReadonlyMap<string, string>;
  readonly backend: CodergenBackend | undefined;
  readonly secrets: SecretMasker;
}

/** Merged outputs up to this many characters stay in the context; larger ones go to the artifact store. */
const MERGED_INLINE_MAX_CHARS = 100_000;

/**
 * `fan_in_mode=merge`: the LLM combines every branch; its reply is the merged output (`response.md`,
 * `parallel.fan_in.merged` or, when large, the artifact `parallel.fan_in.merged_artifact` names, and
 * `last_response`). The successful branches' `context_updates` are applied in edge order (a later branch wins).
 */
async function merge(options: MergeOptions): Promise<Outcome> {
  const { node, graph, runtime, results, outputs, backend, secrets } = options;
  if (backend === undefined) {
    return {
      status: 'fail',
      failureReason: `Fan-in "${node.id}" has fan_in_mode=merge but the run has no LLM backend to merge with; pass a backend (or --simulate), or remove fan_in_mode to pick one branch.`,
      retryable: false,
    };
  }
  const instruction = buildStagePrompt(node, graph, options.context);
  const asked = await ask({
    ...options,
    backend,
    prompt: buildMergePrompt({ instruction, results, outputs }),
  });
  if ('failed' in asked) return asked.failed;
  const answer = asked.answer;
  if (typeof answer !== 'string') return answer;
  const merged = secrets.maskText(answer);
  await runtime.stage.writeFile('response.md', merged);
  const contextUpdates: Record<string, JsonValue> = {};
  for (const result of results) {
    if (isSuccessfulCandidate(result.status)) Object.assign(contextUpdates, result.context_updates);
  }
  if (merged.length <= MERGED_INLINE_MAX_CHARS) {
    contextUpdates['parallel.fan_in.merged'] = merged;
  } else {
    const artifact = await runtime.artifacts.store({
      id: `parallel.fan_in.${node.id}.merged`,
      name: `merged output of fan-in ${node.id}`,
      data: merged,
    });
    contextUpdates['parallel.fan_in.merged_artifact'] = artifact.id;
  }
  const merging = results.filter((result) => isSuccessfulCandidate(result.status));
  return {
    status: 'success',
    contextUpdates: {
      ...contextUpdates,
      last_stage: node.id,
      last_response: merged.slice(0, LAST_RESPONSE_MAX_CHARS),
      'parallel.fan_in.best_id': '',
      'parallel.fan_in.best_outcome': 'success',
      'parallel.fan_in.mode': 'merge',
    },
    notes: `Merged ${merging.length} branches (${merging.map((result) => result.branch).join(', ')}) by LLM`,
  };
}

/** Writes the (masked) prompt to `prompt.md` and asks the backend; a thrown error becomes a FAIL outcome. */
async function ask(options: {
  readonly node: GraphNode;
  readonly graph: Graph;
  readonly context: Context;
  readonly runtime: HandlerRuntime;
  readonly backend: CodergenBackend;
  readonly secrets: SecretMasker;
  readonly prompt: string;
}): Promise<{ readonly answer: string | Outcome } | { readonly failed: Outcome }> {
  const { node, graph, context, runtime } = options;
  const prompt = options.secrets.maskText(options.prompt);
  await runtime.stage.writeFile('prompt.md', prompt);
  try {
    return {
      answer: await options.backend.run(createCodergenRequest({ node, graph, prompt, context, runtime })),
    };
  } catch (error) {
    return { failed: errorToFailOutcome(error) };
  }
}
