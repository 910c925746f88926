/**
 * The preflight message of `run` / `resume` / `serve`: every LLM stage the backend cannot run, grouped by what to
 * fix, in one message (exit 2), before anything runs.
 */
import type { LlmStageProblem } from '@attractor/backend-ai-sdk';

function nodes(ids: readonly string[]): string {
  return ids.map((id) => `"${id}"`).join(', ');
}

/**
 * The message for the problems found by `checkLlmStages`, e.g.
 * `Set ANTHROPIC_API_KEY for provider anthropic: LLM stage "review" (model claude-sonnet-4-6)`, ending with
 * `closing` (default: `Or pass --simulate to run without an LLM.`, what `run` and `resume` say), under `heading`
 * (default: `The pipeline was not started: <n> LLM stage(s) cannot run.`). `stageWords` names the stages when the user
 * did not write them (`attractor new`'s own stage: `the model that writes the pipeline`); default: `LLM stage "<id>"`.
 * Pure.
 */
export function formatPreflight(
  problems: readonly LlmStageProblem[],
  closing = 'Or pass --simulate to run without an LLM.',
  heading?: string,
  stageWords?: string,
): string {
  const lines: string[] = [];
  const byProvider = new Map<string, Extract<LlmStageProblem, { kind: 'no_credentials' }>[]>();
  for (const problem of problems) {
    if (problem.kind !== 'no_credentials') continue;
    byProvider.set(problem.provider, [...(byProvider.get(problem.provider) ?? []), problem]);
  }
  for (const [provider, missing] of byProvider) {
    const models = [...new Set(missing.map((problem) => problem.modelId))].join(', ');
    const variables = missing[0]?.variables.join(' or ') ?? '';
    const stages = missing.length === 1 ? 'LLM stage' : 'LLM stages';
    lines.push(
      `  - set ${variables} for provider ${provider}: ${stageWords ?? `${stages} ${nodes(missing.map((problem) => problem.nodeId))}`} (model ${models})`,
    );
  }
  for (const problem of problems) {
    if (problem.kind === 'unknown_provider') {
      lines.push(
        `  - LLM stage "${problem.nodeId}" names provider "${problem.provider}" (model ${problem.modelId}), which is not built in: set llm_provider to openai, anthropic, google or gemini (or pass --base-url for an OpenAI-compatible server and set llm_provider="openai")`,
      );
    }
  }
  const noModel = problems.filter((problem) => problem.kind === 'no_model').map((problem) => problem.nodeId);
  if (noModel.length > 0) {
    lines.push(
      stageWords === undefined
        ? `  - ${noModel.length === 1 ? 'LLM stage' : 'LLM stages'} ${nodes(noModel)} ${noModel.length === 1 ? 'names' : 'name'} no model: set llm_model on the node or in the model_stylesheet, or pass --model`
        : `  - no model is chosen for ${stageWords}: pass --model (e.g. --model claude-sonnet-4-6), or set defaults.model in the config file`,
    );
  }
  const count = new Set(problems.map((problem) => problem.nodeId)).size;
  const head =
    heading ?? `The pipeline was not started: ${count} LLM ${count === 1 ? 'stage' : 'stages'} cannot run.`;
  return `${head}\n${lines.join('\n')}${closing === '' ? '' : `\n${closing}`}`;
}
