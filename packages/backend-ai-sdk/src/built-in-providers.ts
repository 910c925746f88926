/**
 * The providers built into the backend (docs/architecture.md "The AI-SDK backend"): OpenAI (the Responses
 * API, or Chat Completions for a custom base URL), Anthropic and Google (also named `gemini`), each with the
 * environment variables that hold its key and base URL. Pure data and pure functions: the caller passes the
 * environment.
 */

/** A built-in provider name. `gemini` is another name of `google`, as real pipelines spell it. */
export type BuiltInProviderName = 'openai' | 'anthropic' | 'google' | 'gemini';

/** Where a built-in provider's settings come from. */
export interface BuiltInProviderInfo {
  /** The canonical provider (`gemini` → `google`). */
  readonly canonical: 'openai' | 'anthropic' | 'google';
  /** Variables holding the API key, in order of preference. */
  readonly keyVariables: readonly string[];
  /** The variable holding a custom base URL. */
  readonly baseUrlVariable: string;
  /** The AI SDK package that speaks the provider's protocol. */
  readonly packageName: string;
}

/** The built-in providers and their environment variables. */
export const BUILT_IN_PROVIDERS = {
  openai: {
    canonical: 'openai',
    keyVariables: ['OPENAI_API_KEY'],
    baseUrlVariable: 'OPENAI_BASE_URL',
    packageName: '@ai-sdk/openai',
  },
  anthropic: {
    canonical: 'anthropic',
    keyVariables: ['ANTHROPIC_API_KEY'],
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    packageName: '@ai-sdk/anthropic',
  },
  google: {
    canonical: 'google',
    keyVariables: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    baseUrlVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    packageName: '@ai-sdk/google',
  },
  gemini: {
    canonical: 'google',
    keyVariables: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    baseUrlVariable: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    packageName: '@ai-sdk/google',
  },
} as const satisfies Record<BuiltInProviderName, BuiltInProviderInfo>;

/** Whether a provider name is built in (case-insensitive). */
export function isBuiltInProvider(name: string): name is BuiltInProviderName {
  return Object.hasOwn(BUILT_IN_PROVIDERS, name);
}

/** The key and base URL of one provider, read from an environment. */
export interface ProviderSettings {
  readonly apiKey?: string;
  readonly baseURL?: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The key and base URL of a built-in provider from `env` (its standard variables, see
 * {@link BUILT_IN_PROVIDERS}); empty values count as unset.
 */
export function providerSettingsFromEnv(
  provider: BuiltInProviderName,
  env: Readonly<Record<string, string | undefined>>,
): ProviderSettings {
  const info: BuiltInProviderInfo = BUILT_IN_PROVIDERS[provider];
  const apiKey = info.keyVariables.map((name) => nonEmpty(env[name])).find((value) => value !== undefined);
  const baseURL = nonEmpty(env[info.baseUrlVariable]);
  return {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(baseURL === undefined ? {} : { baseURL }),
  };
}

/**
 * The provider a model name implies: `gpt-*`, `chatgpt-*`, `o1`/`o3`/`o4` (and their variants), `codex*` →
 * `openai`; `claude-*` → `anthropic`; `gemini-*` → `google`; anything else → undefined.
 */
export function inferProvider(modelId: string): 'openai' | 'anthropic' | 'google' | undefined {
  const id = modelId.toLowerCase();
  if (/^(gpt-|chatgpt-|codex|o[134](-|$))/.test(id)) return 'openai';
  if (id.startsWith('claude-')) return 'anthropic';
  if (id.startsWith('gemini-')) return 'google';
  return undefined;
}
