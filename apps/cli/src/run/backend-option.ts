/**
 * The `--backend` option of `run`, `resume` and `serve` (spec §1.4: the run, not the DOT file, chooses how LLM
 * stages run): one backend for every stage, a mapping per provider, or both.
 */
import { InvalidArgumentError } from 'commander';

/**
 * The backends: `api` (the AI SDK backend) or a coding-agent CLI. The same list as `BACKEND_VALUES` of
 * @attractor/graph (a test keeps them equal); spelled out here so that parsing options loads no graph code.
 */
export const BACKEND_VALUES = ['api', 'claude-code', 'codex', 'gemini-cli'] as const;

/** A backend name: `api` (the AI SDK backend) or a coding-agent CLI. */
export type BackendName = (typeof BACKEND_VALUES)[number];

/** Which backend runs each LLM stage, as `--backend` says. */
export interface BackendRouting {
  /** For stages whose provider has no mapping. Default: `api`. */
  readonly default: BackendName;
  /** By provider (`anthropic`, `openai`, `google`, ...): the node's `llm_provider`, or the one its model implies. */
  readonly byProvider: Readonly<Record<string, BackendName>>;
}

/** The routing without a `--backend` option: every stage on the AI SDK backend. */
export const DEFAULT_BACKEND_ROUTING: BackendRouting = { default: 'api', byProvider: {} };

function isBackendName(value: string): value is BackendName {
  return (BACKEND_VALUES as readonly string[]).includes(value);
}

function checkName(name: string, where: string): BackendName {
  if (isBackendName(name)) return name;
  throw new InvalidArgumentError(
    `"${name}"${where} is not a backend; use one of ${BACKEND_VALUES.join(', ')} (e.g. --backend claude-code or --backend anthropic=claude-code,openai=codex).`,
  );
}

/**
 * Parses `--backend`: comma-separated entries, each a backend name (the default for every stage) or
 * `<provider>=<backend>`. `claude-code`, `anthropic=claude-code,openai=codex` and `codex,anthropic=claude-code`
 * are valid.
 *
 * @throws {InvalidArgumentError} naming the entry and the valid backends.
 */
export function parseBackendOption(text: string): BackendRouting {
  let fallback: BackendName | undefined;
  const byProvider: Record<string, BackendName> = {};
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const equals = entry.indexOf('=');
    if (equals === -1) {
      if (fallback !== undefined) {
        throw new InvalidArgumentError(
          `"${text}" names two default backends (${fallback}, ${entry}); give one, plus <provider>=<backend> pairs.`,
        );
      }
      fallback = checkName(entry, '');
      continue;
    }
    const provider = entry.slice(0, equals).trim().toLowerCase();
    if (provider === '') throw new InvalidArgumentError(`the provider before "=" is empty in "${entry}".`);
    byProvider[provider] = checkName(entry.slice(equals + 1).trim(), ` (for provider ${provider})`);
  }
  if (fallback === undefined && Object.keys(byProvider).length === 0) {
    throw new InvalidArgumentError(`expected a backend (${BACKEND_VALUES.join(', ')}), got "${text}".`);
  }
  return { default: fallback ?? 'api', byProvider };
}

/** The `--backend` value that {@link parseBackendOption} reads back as `routing` (for recording a run's choice). */
export function formatBackendOption(routing: BackendRouting): string {
  return [
    routing.default,
    ...Object.entries(routing.byProvider).map(([provider, name]) => `${provider}=${name}`),
  ].join(',');
}

/**
 * The backend of one LLM stage: the node's `backend` attribute (after the stylesheet), else the mapping of its
 * provider (`llm_provider`, else `inferredProvider` of its model), else the default.
 */
export function backendForNode(
  node: {
    readonly attributes: Readonly<Record<string, { readonly value: string } | undefined>>;
    readonly llmProvider?: string;
  },
  routing: BackendRouting,
  inferredProvider?: string,
): BackendName {
  const own = node.attributes.backend?.value.trim();
  if (own !== undefined && isBackendName(own)) return own;
  const provider = (node.llmProvider ?? inferredProvider)?.toLowerCase();
  return (provider === undefined ? undefined : routing.byProvider[provider]) ?? routing.default;
}
