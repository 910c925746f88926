/**
 * The preflight of the AI SDK backend (DESIGN.md "The AI-SDK backend"): before a run starts, which LLM stages of a
 * graph lack a model, a known provider or the provider's credentials, all at once, so a user fixes everything in
 * one go instead of finding out stage by stage. Pure: the caller passes the environment.
 */
import { type Graph, type HandlerTraits, traitsOfType } from '@attractor/graph';
import { BUILT_IN_PROVIDERS, isBuiltInProvider, providerSettingsFromEnv } from './built-in-providers.js';
import { stageModelChoice } from './resolve-model.js';

/** Options of {@link checkLlmStages}: the parts of the backend options that decide models and credentials. */
export interface CheckLlmStagesOptions {
  readonly graph: Graph;
  /** The environment the backend will get (`env` of `createAiSdkBackend`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly defaultModel?: string;
  readonly defaultProvider?: string;
  /** OpenAI key passed as an option; counts as OpenAI's credentials. */
  readonly apiKey?: string;
  /** OpenAI-compatible base URL passed as an option: local servers need no key. */
  readonly baseURL?: string;
  /** Names of providers passed in `providers` (they bring their own credentials). */
  readonly providerNames?: readonly string[];
  /** Check only these node ids (e.g. the stages a run routes to this backend). Default: every LLM stage. */
  readonly only?: ReadonlySet<string>;
  /**
   * The capabilities the run's handlers declare, by handler type (`HandlerRegistry.lintInfo()`): a node is an LLM
   * stage when its handler declares `callsModel` (a plug-in registered under `codergen` that does not call the model
   * is no LLM stage; one under another type that does is). Default: the spec's built-in handlers.
   */
  readonly handlers?: ReadonlyMap<string, HandlerTraits>;
}

/** A problem of one LLM stage found before the run. */
export type LlmStageProblem =
  /** The stage names no model and there is no default model. */
  | { readonly kind: 'no_model'; readonly nodeId: string }
  /** The stage's provider has no key: set one of `variables`. */
  | {
      readonly kind: 'no_credentials';
      readonly nodeId: string;
      readonly provider: string;
      readonly modelId: string;
      readonly variables: readonly string[];
    }
  /** The stage names a provider that is neither built in nor passed in. */
  | {
      readonly kind: 'unknown_provider';
      readonly nodeId: string;
      readonly provider: string;
      readonly modelId: string;
    };

/** What {@link checkLlmStages} found. */
export interface LlmStagesCheck {
  /** Ids of the graph's LLM stages (handlers that declare `callsModel`), in declaration order. */
  readonly llmStages: readonly string[];
  readonly problems: readonly LlmStageProblem[];
}

/**
 * Checks every LLM stage of `graph` (nodes whose handler declares `callsModel`: `codergen` unless `handlers`
 * say otherwise; sub-pipelines are not read): that
 * it has a model, that its provider is known, and that a built-in provider has its key in `env` (OpenAI also
 * accepts a base URL without a key, for local OpenAI-compatible servers). A graph without LLM stages has no
 * problems whatever the environment.
 */
export function checkLlmStages(options: CheckLlmStagesOptions): LlmStagesCheck {
  const llmStages: string[] = [];
  const problems: LlmStageProblem[] = [];
  const passedIn = new Set((options.providerNames ?? []).map((name) => name.toLowerCase()));
  for (const node of options.graph.nodes.values()) {
    if (traitsOfType(options.graph.handlerType(node), options.handlers).callsModel !== true) continue;
    if (options.only !== undefined && !options.only.has(node.id)) continue;
    llmStages.push(node.id);
    const choice = stageModelChoice({
      node,
      ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
      ...(options.defaultProvider === undefined ? {} : { defaultProvider: options.defaultProvider }),
    });
    if (choice.modelId === undefined || choice.provider === undefined) {
      problems.push({ kind: 'no_model', nodeId: node.id });
      continue;
    }
    const { provider, modelId } = choice;
    if (passedIn.has(provider)) continue;
    if (!isBuiltInProvider(provider)) {
      problems.push({ kind: 'unknown_provider', nodeId: node.id, provider, modelId });
      continue;
    }
    const settings = providerSettingsFromEnv(provider, options.env);
    const openaiWithoutKeyOk =
      provider === 'openai' && (options.baseURL !== undefined || settings.baseURL !== undefined);
    const hasKey =
      settings.apiKey !== undefined ||
      (provider === 'openai' && options.apiKey !== undefined && options.apiKey !== '');
    if (!hasKey && !openaiWithoutKeyOk) {
      problems.push({
        kind: 'no_credentials',
        nodeId: node.id,
        provider,
        modelId,
        variables: BUILT_IN_PROVIDERS[provider].keyVariables,
      });
    }
  }
  return { llmStages, problems };
}
