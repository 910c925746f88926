import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CliError } from '../errors/cli-error.js';
import type { BackendChoice, RunCliOptions } from './run-cli-options.js';

/** The file in a run directory where `run` records its backend choice for `resume`. */
export const CLI_OPTIONS_FILE = 'cli-options.json';

/** What `run` records for `resume` (never secrets: the API key always comes from the environment). */
export interface RecordedCliOptions extends BackendChoice {
  readonly autoApprove?: boolean;
  readonly maxSteps?: number;
}

/** How the LLM stages will run, with everything resolved. */
export type ResolvedBackend =
  | { readonly kind: 'simulate'; readonly scriptPath?: string; readonly dryRun: boolean }
  | {
      readonly kind: 'ai-sdk';
      readonly apiKey: string;
      readonly baseURL?: string;
      readonly model?: string;
      readonly provider?: string;
    };

/**
 * Decides the backend from the options and the environment. `OPENAI_API_KEY` and `OPENAI_BASE_URL` are read
 * here (the CLI is the only place that reads the environment). `--simulate-script` implies `--simulate`.
 * A base URL without a key is allowed (local OpenAI-compatible servers usually need none).
 *
 * @throws {CliError} `CLI_MISSING_API_KEY` when neither a key, a base URL, `--simulate` nor `--dry-run` is given.
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
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = choice.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
  if (apiKey === undefined && baseURL === undefined) {
    throw new CliError({
      code: 'CLI_MISSING_API_KEY',
      message:
        'No LLM is configured, so the pipeline was not started. Set OPENAI_API_KEY to use OpenAI, or pass --base-url <url> (or set OPENAI_BASE_URL) for an OpenAI-compatible server, or pass --simulate to run without an LLM.',
    });
  }
  return {
    kind: 'ai-sdk',
    // Local servers ignore the key, but the OpenAI client insists on one.
    apiKey: apiKey ?? 'not-needed',
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(choice.model === undefined ? {} : { model: choice.model }),
    ...(choice.provider === undefined ? {} : { provider: choice.provider }),
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
    ...(options.autoApprove === true ? { autoApprove: true } : {}),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
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
