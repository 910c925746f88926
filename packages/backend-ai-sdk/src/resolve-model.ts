/**
 * Which model a stage uses (docs/architecture.md "The AI-SDK backend"): the node's `llm_model` /
 * `llm_provider` (already set by the stylesheet transform), the provider inferred from the model name when
 * missing, then the backend's default provider; the backend's default model for nodes that name none. Models
 * come from the AI SDK's provider registry (`createProviderRegistry`), which holds the built-in providers and
 * the ones the caller passes in.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { type LanguageModelV4, NoSuchModelError, type ProviderV3, type ProviderV4 } from '@ai-sdk/provider';
import type { GraphNode } from '@attractor/graph';
import { createProviderRegistry, type LanguageModel } from 'ai';
import {
  BUILT_IN_PROVIDERS,
  type BuiltInProviderName,
  inferProvider,
  providerSettingsFromEnv,
} from './built-in-providers.js';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

/**
 * An AI SDK provider passed in by the caller: a provider instance (`createAnthropic()`, `createOpenAI()`,
 * `customProvider(...)`: anything with `languageModel(modelId)`) or a function from model id to model.
 */
export type ModelProvider =
  | ProviderV4
  | ProviderV3
  | { languageModel(modelId: string): Exclude<LanguageModel, string> }
  | ((modelId: string) => Exclude<LanguageModel, string>);

/** What {@link createModelRegistry} needs from the backend options. */
export interface ModelRegistryOptions {
  /** Providers by name; they replace built-in providers of the same name. */
  readonly providers?: Readonly<Record<string, ModelProvider>>;
  /** Environment with the providers' keys and base URLs (see `BUILT_IN_PROVIDERS`). Default: empty. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** OpenAI key; wins over `OPENAI_API_KEY`. */
  readonly apiKey?: string;
  /** OpenAI-compatible base URL; wins over `OPENAI_BASE_URL`. */
  readonly baseURL?: string;
  /** The OpenAI API: default `chat` with a custom base URL, `responses` without one. */
  readonly openaiApi?: 'chat' | 'responses';
}

/** Where a provider's requests go, for messages and reasoning options. */
export interface ProviderTarget {
  /** The provider name as registered (lowercase; `gemini` is registered as itself). */
  readonly provider: string;
  /** Set for a built-in provider the caller did not replace. */
  readonly builtIn?: BuiltInProviderName;
  /** A custom base URL of a built-in provider. */
  readonly baseURL?: string;
  /** For built-in OpenAI: which API it speaks. */
  readonly openaiApi?: 'chat' | 'responses';
}

/** The AI SDK provider registry of a backend, with what it knows about each provider. */
export interface ModelRegistry {
  /** The model `modelId` of `provider` through the registry (`provider:modelId`). */
  languageModel(provider: string, modelId: string): LanguageModelV4;
  /** The registered provider names. */
  readonly providerNames: readonly string[];
  /** How a registered provider is configured; undefined for an unknown name. */
  target(provider: string): ProviderTarget | undefined;
}

function asProvider(given: ModelProvider): ProviderV4 | ProviderV3 {
  if (typeof given !== 'function' && 'specificationVersion' in given) return given;
  const languageModel = typeof given === 'function' ? given : (id: string) => given.languageModel(id);
  const none = (modelType: 'embeddingModel' | 'imageModel') => (modelId: string) => {
    throw new NoSuchModelError({ modelId, modelType });
  };
  return {
    specificationVersion: 'v4',
    languageModel: languageModel as (modelId: string) => LanguageModelV4,
    embeddingModel: none('embeddingModel'),
    imageModel: none('imageModel'),
  };
}

/** `ANTHROPIC_BASE_URL` is the server's root in Anthropic's own tools (no `/v1`); the AI SDK wants `/v1`. */
function anthropicBaseURL(baseURL: string): string {
  const trimmed = baseURL.replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/**
 * Builds the provider registry: `openai`, `anthropic`, `google` and `gemini` (the same Google provider) with
 * keys and base URLs from `env`, then the caller's providers over them. Every key is passed explicitly (empty when
 * unset) so the provider packages never read `process.env` themselves.
 */
export function createModelRegistry(options: ModelRegistryOptions = {}): ModelRegistry {
  const env = options.env ?? {};
  const targets = new Map<string, ProviderTarget>();
  const providers: Record<string, ProviderV4 | ProviderV3> = {};

  const openaiEnv = providerSettingsFromEnv('openai', env);
  const openaiBaseURL = options.baseURL ?? openaiEnv.baseURL;
  const openaiApi = options.openaiApi ?? (openaiBaseURL === undefined ? 'responses' : 'chat');
  const openai = createOpenAI({
    apiKey: options.apiKey ?? openaiEnv.apiKey ?? '',
    ...(openaiBaseURL === undefined ? {} : { baseURL: openaiBaseURL }),
  });
  providers.openai =
    openaiApi === 'responses'
      ? openai
      : {
          specificationVersion: 'v4',
          languageModel: (modelId) => openai.chat(modelId),
          embeddingModel: (modelId) => openai.embeddingModel(modelId),
          imageModel: (modelId) => openai.imageModel(modelId),
        };
  targets.set('openai', {
    provider: 'openai',
    builtIn: 'openai',
    openaiApi,
    ...(openaiBaseURL === undefined ? {} : { baseURL: openaiBaseURL }),
  });

  const anthropicEnv = providerSettingsFromEnv('anthropic', env);
  const anthropicURL =
    anthropicEnv.baseURL === undefined ? undefined : anthropicBaseURL(anthropicEnv.baseURL);
  providers.anthropic = createAnthropic({
    apiKey: anthropicEnv.apiKey ?? '',
    ...(anthropicURL === undefined ? {} : { baseURL: anthropicURL }),
  });
  targets.set('anthropic', {
    provider: 'anthropic',
    builtIn: 'anthropic',
    ...(anthropicURL === undefined ? {} : { baseURL: anthropicURL }),
  });

  const googleEnv = providerSettingsFromEnv('google', env);
  const google = createGoogle({
    apiKey: googleEnv.apiKey ?? '',
    ...(googleEnv.baseURL === undefined ? {} : { baseURL: googleEnv.baseURL }),
  });
  for (const name of ['google', 'gemini'] as const) {
    providers[name] = google;
    targets.set(name, {
      provider: name,
      builtIn: name,
      ...(googleEnv.baseURL === undefined ? {} : { baseURL: googleEnv.baseURL }),
    });
  }

  for (const [rawName, given] of Object.entries(options.providers ?? {})) {
    const name = rawName.toLowerCase();
    providers[name] = asProvider(given);
    targets.set(name, { provider: name });
  }

  const registry = createProviderRegistry(providers);
  return {
    languageModel: (provider, modelId) => registry.languageModel(`${provider}:${modelId}`),
    providerNames: [...targets.keys()],
    target: (provider) => targets.get(provider.toLowerCase()),
  };
}

/** What {@link resolveModel} needs. */
export interface ResolveModelOptions {
  readonly node: GraphNode;
  readonly registry: ModelRegistry;
  readonly defaultModel?: string;
  /** Provider for model names that infer none. Default: `openai` (any OpenAI-compatible server). */
  readonly defaultProvider?: string;
}

/** The model chosen for a stage. */
export interface ResolvedModel extends ProviderTarget {
  readonly model: LanguageModelV4;
  readonly modelId: string;
}

/** The model id and provider name a node will use, without creating the model. Pure. */
export function stageModelChoice(options: {
  readonly node: GraphNode;
  readonly defaultModel?: string;
  readonly defaultProvider?: string;
}): { readonly modelId?: string; readonly provider?: string } {
  const modelId = options.node.llmModel ?? options.defaultModel;
  if (modelId === undefined || modelId.trim() === '') return {};
  const provider = (
    options.node.llmProvider ??
    inferProvider(modelId) ??
    options.defaultProvider ??
    'openai'
  ).toLowerCase();
  return { modelId, provider };
}

/**
 * Picks the model for a node.
 *
 * @throws {BackendConfigurationError} (`setting: 'model'`) when the node names no model and there is no default;
 *   (`setting: 'provider'`) when the registry has no such provider, with the code to pass one.
 */
export function resolveModel(options: ResolveModelOptions): ResolvedModel {
  const { node } = options;
  const choice = stageModelChoice(options);
  if (choice.modelId === undefined || choice.provider === undefined) {
    throw new BackendConfigurationError({
      setting: 'model',
      nodeId: node.id,
      message: `Node "${node.id}" names no model and the backend has no default model. Set llm_model on the node (or in the model_stylesheet), pass --model on the CLI, or pass \`defaultModel\` to createAiSdkBackend.`,
    });
  }
  const { modelId, provider } = choice;
  const target = options.registry.target(provider);
  if (target === undefined) {
    const known = options.registry.providerNames.join(', ');
    throw new BackendConfigurationError({
      setting: 'provider',
      nodeId: node.id,
      message: `Node "${node.id}" uses model "${modelId}" of provider "${provider}", which the backend does not know (it knows ${known}). Set llm_provider to one of those, or pass the AI SDK provider in: createAiSdkBackend({ providers: { ${provider}: createX({ apiKey }) } }).`,
    });
  }
  return { ...target, model: options.registry.languageModel(provider, modelId), modelId };
}

/** The environment variable that holds the key of a built-in provider, for messages. */
export function keyVariableOf(target: ProviderTarget): string | undefined {
  return target.builtIn === undefined
    ? undefined
    : BUILT_IN_PROVIDERS[target.builtIn].keyVariables.join(' or ');
}

/**
 * Whether an OpenAI model id names a reasoning model (`o1`, `o3-mini`, `o4-mini`, `gpt-5*` except `-chat`
 * variants, `codex*`), the models that accept `reasoningEffort`.
 */
export function isOpenAIReasoningModel(modelId: string): boolean {
  const id = modelId.toLowerCase();
  if (/^o\d+(-|$)/.test(id) || id.startsWith('codex')) return true;
  const gpt = /^gpt-(\d+)/.exec(id);
  return gpt !== null && Number(gpt[1]) >= 5 && !id.includes('-chat');
}
