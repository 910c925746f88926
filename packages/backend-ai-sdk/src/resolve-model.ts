/**
 * Which model a stage uses (DESIGN.md "The AI-SDK backend"): the node's `llm_model` / `llm_provider` (already set
 * by the stylesheet transform), the provider inferred from the model name when missing, and the backend's
 * default model for nodes that name none. OpenAI is built in; other providers are passed in as instances.
 */
import type { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { GraphNode } from '@attractor/graph';
import { BackendConfigurationError } from './errors/backend-configuration-error.js';

/**
 * An AI SDK provider: a provider instance (`createAnthropic()`, `createOpenAI()`, ...: anything with
 * `languageModel(modelId)`) or a function from model id to model.
 */
export type ModelProvider =
  | { languageModel(modelId: string): LanguageModelV3 }
  | ((modelId: string) => LanguageModelV3);

/** What {@link resolveModel} needs from the backend options. */
export interface ResolveModelOptions {
  readonly node: GraphNode;
  readonly providers?: Readonly<Record<string, ModelProvider>>;
  readonly defaultModel?: string;
  /** Provider for model names that infer none. Default: `openai` (any OpenAI-compatible server). */
  readonly defaultProvider?: string;
  /** The built-in OpenAI provider, created lazily by the caller. */
  readonly builtInOpenAI: () => BuiltInOpenAI;
}

/** The built-in OpenAI provider and how it was configured. */
export interface BuiltInOpenAI {
  readonly provider: ReturnType<typeof createOpenAI>;
  /** `chat` (Chat Completions, the API every OpenAI-compatible server offers) or `responses`. */
  readonly api: 'chat' | 'responses';
  /** The custom base URL, if any. */
  readonly baseURL?: string;
}

/** The model chosen for a stage. */
export interface ResolvedModel {
  readonly model: LanguageModelV3;
  readonly provider: string;
  readonly modelId: string;
  /** True when the built-in OpenAI provider serves the model. */
  readonly builtInOpenAI: boolean;
  /** The custom base URL of the built-in provider, if any. */
  readonly baseURL?: string;
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

const PACKAGE_OF: Readonly<Record<string, string>> = {
  anthropic: '@ai-sdk/anthropic',
  google: '@ai-sdk/google',
};

/**
 * Picks the model for a node.
 *
 * @throws {BackendConfigurationError} (`setting: 'model'`) when the node names no model and there is no default;
 *   (`setting: 'provider'`) when the provider has no instance, with the code to pass one.
 */
export function resolveModel(options: ResolveModelOptions): ResolvedModel {
  const { node } = options;
  const modelId = node.llmModel ?? options.defaultModel;
  if (modelId === undefined || modelId === '') {
    throw new BackendConfigurationError({
      setting: 'model',
      nodeId: node.id,
      message: `Node "${node.id}" names no model and the backend has no default model. Set llm_model on the node (or in the model_stylesheet), pass --model on the CLI, or pass \`defaultModel\` to createAiSdkBackend.`,
    });
  }
  const provider = node.llmProvider ?? inferProvider(modelId) ?? options.defaultProvider ?? 'openai';
  const given = options.providers?.[provider];
  if (given !== undefined) {
    const model = typeof given === 'function' ? given(modelId) : given.languageModel(modelId);
    return { model, provider, modelId, builtInOpenAI: false };
  }
  if (provider === 'openai') {
    const openai = options.builtInOpenAI();
    const model =
      openai.api === 'responses' ? openai.provider.responses(modelId) : openai.provider.chat(modelId);
    return {
      model,
      provider,
      modelId,
      builtInOpenAI: true,
      ...(openai.baseURL === undefined ? {} : { baseURL: openai.baseURL }),
    };
  }
  const packageName = PACKAGE_OF[provider] ?? `the AI SDK provider package for "${provider}"`;
  const factory =
    provider === 'anthropic'
      ? 'createAnthropic'
      : provider === 'google'
        ? 'createGoogleGenerativeAI'
        : 'create…';
  throw new BackendConfigurationError({
    setting: 'provider',
    nodeId: node.id,
    message: `Node "${node.id}" uses model "${modelId}" of provider "${provider}", but the backend has no "${provider}" provider. Install ${packageName} and pass it in: createAiSdkBackend({ providers: { ${provider}: ${factory}({ apiKey }) } }). Only OpenAI is built in.`,
  });
}
