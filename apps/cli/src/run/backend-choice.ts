import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CodergenBackend } from '@attractor/engine';
import type { CliConfig } from '../config/load-cli-config.js';
import { type BackendRouting, formatBackendOption, readBackendOption } from './backend-option.js';
import type { BackendChoice, RunCliOptions } from './run-cli-options.js';

/** The file in a run directory where `run` records its backend choice for `resume`. */
export const CLI_OPTIONS_FILE = 'cli-options.json';

/** What `run` records for `resume` (never secrets: the API key always comes from the environment). */
export interface RecordedCliOptions extends Omit<BackendChoice, 'backend'> {
  /** `--backend` as written by {@link formatBackendOption}. */
  readonly backend?: string;
  readonly autoApprove?: boolean;
  readonly maxSteps?: number;
  readonly maxBudgetUsd?: number;
  readonly maxTokens?: number;
  readonly sandbox?: RunCliOptions['sandbox'];
}

/** The AI SDK backend's settings (the providers' keys come from the environment, checked per stage). */
export interface AiSdkSettings {
  readonly kind: 'ai-sdk';
  readonly baseURL?: string;
  readonly model?: string;
  readonly provider?: string;
  /** Absolute path of the `--prices` file. */
  readonly pricesPath?: string;
}

/** How the LLM stages will run, with everything resolved. */
export type ResolvedBackend =
  | {
      readonly kind: 'simulate';
      readonly scriptPath?: string;
      readonly dryRun: boolean;
      /** Breaks ties between equally short routes (`--seed`). Default: 0. */
      readonly seed?: number;
    }
  | {
      /** A backend of the config file (`backends`, picked by `defaults.backend`). */
      readonly kind: 'plugin';
      readonly name: string;
      readonly backend: CodergenBackend;
    }
  | AiSdkSettings
  | {
      /** `--backend`: each stage goes to the backend the routing picks for it. */
      readonly kind: 'routed';
      readonly routing: BackendRouting;
      readonly agentPermissions: 'edit' | 'full';
      /** The AI SDK backend for stages routed to `api` (their providers' keys are checked per stage). */
      readonly api: AiSdkSettings;
      /** Default model for stages that name none (`--model`). */
      readonly model?: string;
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
): Exclude<ResolvedBackend, { kind: 'plugin' }> {
  if (choice.simulate === true || choice.dryRun === true || choice.simulateScript !== undefined) {
    return {
      kind: 'simulate',
      dryRun: choice.dryRun === true,
      ...(choice.simulateScript === undefined ? {} : { scriptPath: resolve(cwd, choice.simulateScript) }),
      ...(choice.seed === undefined ? {} : { seed: choice.seed }),
    };
  }
  const baseURL = choice.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
  const api: AiSdkSettings = {
    kind: 'ai-sdk',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(choice.model === undefined ? {} : { model: choice.model }),
    ...(choice.provider === undefined ? {} : { provider: choice.provider }),
    ...(choice.prices === undefined ? {} : { pricesPath: resolve(cwd, choice.prices) }),
  };
  if (choice.backend !== undefined) {
    // Which stages need which backend is known once the graph is read (the run services check it).
    return {
      kind: 'routed',
      routing: choice.backend,
      agentPermissions: choice.agentPermissions ?? 'edit',
      api,
      ...(choice.model === undefined ? {} : { model: choice.model }),
    };
  }
  return api;
}

/** Writes the backend choice of a run into its directory. */
export async function recordCliOptions(logsRoot: string, options: RunCliOptions, cwd: string): Promise<void> {
  const recorded: RecordedCliOptions = {
    ...(options.simulate === true ? { simulate: true } : {}),
    ...(options.simulateScript === undefined ? {} : { simulateScript: resolve(cwd, options.simulateScript) }),
    ...(options.dryRun === true ? { dryRun: true } : {}),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...(options.prices === undefined ? {} : { prices: resolve(cwd, options.prices) }),
    ...(options.backend === undefined ? {} : { backend: formatBackendOption(options.backend) }),
    ...(options.agentPermissions === undefined ? {} : { agentPermissions: options.agentPermissions }),
    ...(options.autoApprove === true ? { autoApprove: true } : {}),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: options.maxBudgetUsd }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
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

/** The backend choice of {@link RecordedCliOptions}, with `--backend` parsed again (dropped when no longer valid). */
export function recordedBackendChoice(recorded: RecordedCliOptions): BackendChoice {
  const { backend, ...rest } = recorded;
  if (backend === undefined) return rest;
  const read = readBackendOption(backend);
  return 'routing' in read ? { ...rest, backend: read.routing } : rest;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Flags given to `resume` win one by one; every backend option the run recorded and `resume` does not give is kept
 * (`resume --model x` keeps the recorded `--backend` and `--base-url`). Choosing a real backend (`--backend`)
 * drops a recorded simulation.
 */
export function mergeResumeOptions(given: RunCliOptions, recorded: RecordedCliOptions): RunCliOptions {
  const backendKeys: (keyof BackendChoice)[] = [
    'simulate',
    'simulateScript',
    'dryRun',
    'seed',
    'model',
    'provider',
    'baseUrl',
    'prices',
    'backend',
    'agentPermissions',
  ];
  const simulationKeys: (keyof BackendChoice)[] = ['simulate', 'simulateScript', 'dryRun'];
  const recordedChoice = recordedBackendChoice(recorded);
  const keep = (key: keyof BackendChoice) =>
    given[key] === undefined &&
    recordedChoice[key] !== undefined &&
    !(given.backend !== undefined && simulationKeys.includes(key));
  const backend: BackendChoice = Object.fromEntries(
    backendKeys.filter(keep).map((key) => [key, recordedChoice[key]]),
  );
  return {
    ...backend,
    ...given,
    ...(given.autoApprove === undefined && recorded.autoApprove === true ? { autoApprove: true } : {}),
    ...(given.maxSteps === undefined && recorded.maxSteps !== undefined
      ? { maxSteps: recorded.maxSteps }
      : {}),
    ...(given.maxBudgetUsd === undefined && recorded.maxBudgetUsd !== undefined
      ? { maxBudgetUsd: recorded.maxBudgetUsd }
      : {}),
    ...(given.maxTokens === undefined && recorded.maxTokens !== undefined
      ? { maxTokens: recorded.maxTokens }
      : {}),
    // A run started in the sandbox stays in it unless `resume --sandbox none` says otherwise.
    ...(given.sandbox === undefined && recorded.sandbox !== undefined ? { sandbox: recorded.sandbox } : {}),
  };
}

/**
 * The config file's backend (`defaults.backend`) when no backend option chooses another: `--simulate`,
 * `--dry-run`, `--simulate-script` and `--backend` win over it.
 */
export function configBackend(choice: BackendChoice, config: CliConfig): ResolvedBackend | undefined {
  const name = config.defaults.backend;
  if (name === undefined) return undefined;
  if (
    choice.simulate === true ||
    choice.dryRun === true ||
    choice.simulateScript !== undefined ||
    choice.backend !== undefined
  )
    return undefined;
  const backend = config.backends.get(name);
  return backend === undefined ? undefined : { kind: 'plugin', name, backend };
}
