import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BackendChoice, RunCliOptions } from './run-cli-options.js';

/** The file in a run directory where `run` records its backend choice for `resume`. */
export const CLI_OPTIONS_FILE = 'cli-options.json';

/** What `run` records for `resume` (never secrets: the API key always comes from the environment). */
export interface RecordedCliOptions extends BackendChoice {
  readonly autoApprove?: boolean;
  readonly maxSteps?: number;
  readonly maxBudgetUsd?: number;
  readonly maxTokens?: number;
}

/** How the LLM stages will run, with everything resolved. */
export type ResolvedBackend =
  | { readonly kind: 'simulate'; readonly scriptPath?: string; readonly dryRun: boolean }
  | {
      readonly kind: 'ai-sdk';
      readonly baseURL?: string;
      readonly model?: string;
      readonly provider?: string;
      /** Absolute path of the `--prices` file. */
      readonly pricesPath?: string;
    };

/**
 * Decides the backend from the options and the environment. `OPENAI_BASE_URL` is read here (the CLI is the only
 * place that reads the environment); the providers' keys are checked per LLM stage by the preflight
 * (`checkLlmStages`) once the pipeline is known, so a pipeline without LLM stages needs none.
 * `--simulate-script` implies `--simulate`.
 */
export function resolveBackend(
  choice: BackendChoice,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): ResolvedBackend {
  if (choice.simulate === true || choice.dryRun === true || choice.simulateScript !== undefined) {
    return {
      kind: 'simulate',
      dryRun: choice.dryRun === true,
      ...(choice.simulateScript === undefined ? {} : { scriptPath: resolve(cwd, choice.simulateScript) }),
    };
  }
  const baseURL = choice.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
  return {
    kind: 'ai-sdk',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(choice.model === undefined ? {} : { model: choice.model }),
    ...(choice.provider === undefined ? {} : { provider: choice.provider }),
    ...(choice.prices === undefined ? {} : { pricesPath: resolve(cwd, choice.prices) }),
  };
}

/** Writes the backend choice of a run into its directory. */
export async function recordCliOptions(logsRoot: string, options: RunCliOptions, cwd: string): Promise<void> {
  const recorded: RecordedCliOptions = {
    ...(options.simulate === true ? { simulate: true } : {}),
    ...(options.simulateScript === undefined ? {} : { simulateScript: resolve(cwd, options.simulateScript) }),
    ...(options.dryRun === true ? { dryRun: true } : {}),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.prices === undefined ? {} : { prices: resolve(cwd, options.prices) }),
    ...(options.autoApprove === true ? { autoApprove: true } : {}),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  await writeFile(join(logsRoot, CLI_OPTIONS_FILE), `${JSON.stringify(recorded, null, 2)}\n`);
}

/** Reads what {@link recordCliOptions} wrote; empty when the run was not started by the CLI. */
export async function readRecordedCliOptions(logsRoot: string): Promise<RecordedCliOptions> {
  try {
    return JSON.parse(await readFile(join(logsRoot, CLI_OPTIONS_FILE), 'utf8')) as RecordedCliOptions;
  } catch {
    return {};
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
